// Command hostile is the load benchmark of issue 17: against a Tessera
// server on this machine's loopback network, it measures plain requests (a
// cached raster tile and a vector tile of a map) quiet, then while other
// clients send hostile requests (huge static maps with many paths and
// markers, WMS pictures of the largest size, markers whose icons come from
// a server that never answers), and prints one Markdown table row. The run
// is bounded in count and time. bench/hostile.sh runs it.
package main

import (
	"context"
	"flag"
	"fmt"
	"net/http"
	"os"
	"sort"
	"strings"
	"time"

	"github.com/tesseramaps/tessera/internal/loadmix"
	"github.com/tesseramaps/tessera/internal/ogc"
)

func main() {
	base := flag.String("base", "http://127.0.0.1:18091", "the server's root URL (loopback only)")
	mapID := flag.String("map", "world", "the map")
	tileset := flag.String("tileset", "world", "the map's vector tileset")
	tile := flag.String("tile", "4/8/5", "the plain tiles' z/x/y")
	plainClients := flag.Int("plain-clients", 4, "clients sending plain requests")
	plain := flag.Int("plain", 4000, "plain requests in the quiet phase")
	hostileClients := flag.Int("hostile-clients", 6, "clients sending hostile requests")
	hostile := flag.Int("hostile", 30, "hostile requests in all")
	label := flag.String("label", "", "the first cell of the row")
	flag.Parse()

	icons, err := loadmix.StartIconServer(-1)
	if err != nil {
		fail(err)
	}
	defer icons.Close()
	client := &http.Client{Transport: &http.Transport{MaxIdleConnsPerHost: *plainClients + *hostileClients}}
	plainPaths := []string{"/maps/" + *mapID + "/" + *tile + ".png", "/tiles/" + *tileset + "/" + *tile + ".pbf"}
	for _, p := range plainPaths { // cached before the run
		resp, err := client.Get(*base + p)
		if err != nil {
			fail(err)
		}
		resp.Body.Close()
	}
	rep, err := loadmix.Run(context.Background(), client, loadmix.Plan{
		Base: *base, Plain: plainPaths, Hostile: loadmix.HostilePaths(*mapID, *mapID, ogc.MaxSize, icons.URL),
		PlainClients: *plainClients, PlainRequests: *plain, HostileClients: *hostileClients, HostileRequests: *hostile,
		MaxTime: 5 * time.Minute,
	})
	if err != nil {
		fail(err)
	}
	q99, l99 := loadmix.Percentile(rep.Quiet, 0.99), loadmix.Percentile(rep.Loaded, 0.99)
	fmt.Printf("| %s | %d, p50 %s, p99 %s, %s | %d, p50 %s, p99 %s, %s | %.1f | p99 %s, %s | %s, longest %s |\n", *label,
		len(rep.Quiet), ms(loadmix.Percentile(rep.Quiet, 0.5)), ms(q99), statuses(rep.Quiet),
		len(rep.Loaded), ms(loadmix.Percentile(rep.Loaded, 0.5)), ms(l99), statuses(rep.Loaded),
		float64(l99)/float64(q99), ms(loadmix.Percentile(rep.After, 0.99)), statuses(rep.After),
		statuses(rep.Hostile), ms(loadmix.Longest(rep.Hostile)))
}

func ms(d time.Duration) string { return fmt.Sprintf("%.2f ms", float64(d)/float64(time.Millisecond)) }

// statuses writes the count of each status, "no answer" for 0.
func statuses(rs []loadmix.Result) string {
	m := loadmix.Statuses(rs)
	keys := make([]int, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	sort.Ints(keys)
	var parts []string
	for _, k := range keys {
		name := fmt.Sprint(k)
		if k == 0 {
			name = "no answer"
		}
		parts = append(parts, fmt.Sprintf("%d x %s", m[k], name))
	}
	return strings.Join(parts, ", ")
}

func fail(err error) {
	fmt.Fprintln(os.Stderr, "hostile:", err)
	os.Exit(1)
}
