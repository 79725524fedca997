package loadmix

import (
	"context"
	"net/http"
	"testing"
	"time"
)

func TestLoopbackOnly(t *testing.T) {
	for base, ok := range map[string]bool{
		"http://127.0.0.1:8080": true, "http://[::1]:80": true, "http://localhost:1": true, "http://127.9.9.9": true,
		"http://10.0.0.1": false, "http://192.168.1.1:80": false, "http://example.com": false, "http://8.8.8.8": false,
	} {
		if err := checkLoopback(base); (err == nil) != ok {
			t.Errorf("%s: %v", base, err)
		}
	}
	if _, err := Run(context.Background(), http.DefaultClient, Plan{Base: "http://10.1.2.3", Plain: []string{"/"}, PlainRequests: 1, PlainClients: 1}); err == nil {
		t.Error("a run against a private address was not refused")
	}
}

func TestPercentile(t *testing.T) {
	var rs []Result
	for i := 1; i <= 100; i++ {
		rs = append(rs, Result{Took: time.Duration(i) * time.Millisecond})
	}
	for q, want := range map[float64]time.Duration{0.5: 50 * time.Millisecond, 0.99: 99 * time.Millisecond, 1: 100 * time.Millisecond, 0: time.Millisecond} {
		if got := Percentile(rs, q); got != want {
			t.Errorf("p%v = %v, want %v", q*100, got, want)
		}
	}
	if Percentile(nil, 0.5) != 0 {
		t.Error("the percentile of nothing is not 0")
	}
}
