package account

import (
	"net/http"

	"github.com/tesseramaps/tessera/internal/apikey"
	"github.com/tesseramaps/tessera/internal/httpapi/respond"
)

// keyList is the answer of GET /api_keys.
type keyList struct {
	Cursor     *string       `json:"cursor"`
	TotalCount int           `json:"total_count"`
	Items      []*apikey.Key `json:"items"`
}

func (a *API) listKeys(w http.ResponseWriter, r *http.Request) {
	_, raw, limit, err := Page(r)
	if err != nil {
		respond.Fail(w, http.StatusBadRequest, err.Error())
		return
	}
	p, err := a.d.Keys.List(r.Context(), raw, limit)
	if err != nil {
		a.fail(w, r, err)
		return
	}
	out := keyList{TotalCount: p.Total, Items: p.Items}
	if p.Next != "" {
		out.Cursor = &p.Next
	}
	respond.JSON(w, http.StatusOK, out)
}

func (a *API) createKey(w http.ResponseWriter, r *http.Request) {
	var s apikey.Settings
	if !respond.Decode(w, r, &s, true) {
		return
	}
	k, err := a.d.Keys.Create(r.Context(), s)
	if err != nil {
		a.fail(w, r, err)
		return
	}
	respond.JSON(w, http.StatusOK, k)
}

func (a *API) getKey(w http.ResponseWriter, r *http.Request) {
	id, ok := pathUUID(w, r, "API key")
	if !ok {
		return
	}
	k, err := a.d.Keys.Get(r.Context(), id)
	if err != nil {
		a.fail(w, r, err)
		return
	}
	respond.JSON(w, http.StatusOK, k)
}

func (a *API) deleteKey(w http.ResponseWriter, r *http.Request) {
	id, ok := pathUUID(w, r, "API key")
	if !ok {
		return
	}
	if err := a.d.Keys.Delete(r.Context(), id); err != nil {
		a.fail(w, r, err)
		return
	}
	w.WriteHeader(http.StatusOK)
}

func (a *API) changeKey(w http.ResponseWriter, r *http.Request) {
	id, ok := pathUUID(w, r, "API key")
	if !ok {
		return
	}
	var s apikey.Settings
	if !respond.Decode(w, r, &s, false) {
		return
	}
	k, err := a.d.Keys.Change(r.Context(), id, s)
	if err != nil {
		a.fail(w, r, err)
		return
	}
	respond.JSON(w, http.StatusOK, k)
}
