package server

import (
	"bytes"
	"net/http"
	"strings"
	"testing"
)

// TestPutStyle: PUT /v1/admin/maps/{id}/style replaces a map's style;
// one with problems is a 400 that changes nothing; an unknown map 404.
func TestPutStyle(t *testing.T) {
	e := mapEnv(t)
	put := func(id, body string) resp {
		return e.do(http.MethodPut, "/v1/admin/maps/"+id+"/style", strings.NewReader(body), "Authorization", "Basic "+token)
	}
	edited := strings.Replace(testStyle, `"Roads map"`, `"Edited roads"`, 1)
	edited = strings.Replace(edited, `"#eee"`, `"#123456"`, 1)
	before := e.do("GET", "/maps/city/256/0/0/0.png", nil)
	if r := put("city", edited); r.status != 200 || !strings.Contains(string(r.body), "Edited roads") {
		t.Fatalf("put: %d %s", r.status, r.body)
	}
	if r := e.do("GET", "/maps/city/style.json", nil); r.status != 200 || !strings.Contains(string(r.body), "#123456") {
		t.Fatalf("the style served: %d %s", r.status, r.body)
	}
	if after := e.do("GET", "/maps/city/256/0/0/0.png", nil); after.status != 200 || bytes.Equal(after.body, before.body) {
		t.Errorf("the raster tile did not change with the style (%d)", after.status)
	}
	checkError(t, put("city", `{"version": 8, "sources": {}, "layers": [{"id": "x", "type": "background", "paint": {"background-color": "bluish"}}]}`), 400)
	checkError(t, put("city", `not json`), 400)
	if r := e.do("GET", "/maps/city/style.json", nil); !strings.Contains(string(r.body), "#123456") {
		t.Errorf("a refused style changed the map: %s", r.body)
	}
	checkError(t, put("nosuch", testStyle), 404)
}
