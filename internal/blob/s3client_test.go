package blob

import (
	"net/url"
	"strings"
	"testing"
)

func TestParseS3URL(t *testing.T) {
	cases := []struct {
		in, bucket, key, endpoint, region string
		pathStyle                         *bool
		bad                               bool
	}{
		{in: "s3://b/a/k.pmtiles", bucket: "b", key: "a/k.pmtiles"},
		{in: "s3://b/pre%20fix?endpoint=http://127.0.0.1:7070&region=eu-west-1&path_style=true", bucket: "b", key: "pre fix", endpoint: "http://127.0.0.1:7070", region: "eu-west-1", pathStyle: new(true)},
		{in: "s3://b?path_style=false", bucket: "b", pathStyle: new(false)},
		{in: "s3://b/k?path_style=maybe", bad: true},
		{in: "http://b/k", bad: true},
		{in: "s3:///k", bad: true},
		{in: "::", bad: true},
	}
	for _, c := range cases {
		bucket, key, cfg, err := ParseS3URL(c.in, S3Config{Region: "base"})
		if c.bad {
			if err == nil {
				t.Errorf("%s accepted", c.in)
			}
			continue
		}
		if err != nil {
			t.Errorf("%s: %v", c.in, err)
			continue
		}
		region := c.region
		if region == "" {
			region = "base" // the base's value stays
		}
		if bucket != c.bucket || key != c.key || cfg.Endpoint != c.endpoint || cfg.Region != region ||
			(cfg.PathStyle == nil) != (c.pathStyle == nil) || (cfg.PathStyle != nil && *cfg.PathStyle != *c.pathStyle) {
			t.Errorf("%s: %q %q %+v", c.in, bucket, key, cfg)
		}
	}
}

// FuzzParseS3URL: any string is refused or gives an s3 URL's parts: a
// bucket that is the URL's host and the key its path without the one
// slash that separates them (s3://b//k names the key "/k").
func FuzzParseS3URL(f *testing.F) {
	for _, s := range []string{"s3://b/k", "s3://b/k?endpoint=http://x&path_style=true", "s3://b/%zz", "s3://b/k?path_style=1&region=r", "s3:b"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		bucket, key, cfg, err := ParseS3URL(s, S3Config{})
		if err != nil {
			return
		}
		u, perr := url.Parse(s)
		if perr != nil || u.Scheme != "s3" || bucket == "" || bucket != u.Host || key != strings.TrimPrefix(u.Path, "/") {
			t.Fatalf("%q: bucket %q key %q (%v)", s, bucket, key, perr)
		}
		if q := u.Query(); cfg.Endpoint != q.Get("endpoint") || cfg.Region != q.Get("region") {
			t.Fatalf("%q: %+v", s, cfg)
		}
	})
}
