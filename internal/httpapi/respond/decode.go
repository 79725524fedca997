package respond

import (
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"strings"
)

// Decode reads a JSON object body strictly (unknown fields refused) into v
// and answers 400 (413 past the body limit) when it is not one. With
// optional, an empty body is accepted and leaves v as it was.
func Decode(w http.ResponseWriter, r *http.Request, v any, optional bool) bool {
	dec := json.NewDecoder(r.Body)
	dec.DisallowUnknownFields()
	if err := dec.Decode(v); err != nil {
		var mbe *http.MaxBytesError
		switch {
		case errors.As(err, &mbe):
			Fail(w, http.StatusRequestEntityTooLarge, fmt.Sprintf("request body larger than %d bytes", mbe.Limit))
		case errors.Is(err, io.EOF):
			if optional {
				return true
			}
			Fail(w, http.StatusBadRequest, "a JSON object body is required")
		default:
			Fail(w, http.StatusBadRequest, "invalid JSON body: "+strings.TrimPrefix(err.Error(), "json: "))
		}
		return false
	}
	if dec.More() {
		Fail(w, http.StatusBadRequest, "invalid JSON body: more than one JSON value")
		return false
	}
	return true
}
