package server

import (
	"encoding/json"
	"fmt"
)

// checkStyle reads a map's style: a JSON object with version 8.
func checkStyle(raw []byte) (string, []string) {
	var doc struct {
		Version *int   `json:"version"`
		Name    string `json:"name"`
	}
	if err := json.Unmarshal(raw, &doc); err != nil {
		return "", []string{fmt.Sprintf("style.json is not a JSON object: %v", err)}
	}
	if doc.Version == nil || *doc.Version != 8 {
		return doc.Name, []string{"version: 8 expected"}
	}
	return doc.Name, nil
}

// rewriteStyle serves a style as stored until the style package's
// rewriting is wired.
var rewriteStyle func(raw []byte, base, keyQuery string, hasTileset func(string) bool) ([]byte, []string, error)
