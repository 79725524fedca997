package admin

import (
	"errors"
	"net/http"

	"github.com/tesseramaps/tessera/internal/httpapi/respond"
	"github.com/tesseramaps/tessera/internal/httpapi/route"
	"github.com/tesseramaps/tessera/internal/svctoken"
)

// RegisterTokens adds the routes that manage the account API's service
// tokens: create (the answer carries the secret, once), list (no secrets)
// and revoke.
func (a *API) RegisterTokens(mux route.Router) {
	mux.HandleFunc("POST "+Prefix+"/tokens", a.createToken)
	mux.HandleFunc("GET "+Prefix+"/tokens", a.listTokens)
	mux.HandleFunc("DELETE "+Prefix+"/tokens/{id}", a.revokeToken)
}

// tokenCreate is the body of POST /tokens (optional).
type tokenCreate struct {
	Name string `json:"name"`
}

// createdToken is a token's record with its secret, shown only once.
type createdToken struct {
	svctoken.Token
	Secret string `json:"token"`
}

func (a *API) createToken(w http.ResponseWriter, r *http.Request) {
	var body tokenCreate
	if !respond.Decode(w, r, &body, true) {
		return
	}
	tok, secret, err := a.d.Tokens.Create(r.Context(), body.Name)
	if errors.Is(err, svctoken.ErrInvalid) {
		respond.Fail(w, http.StatusBadRequest, err.Error())
		return
	}
	if err != nil {
		a.fail(w, r, err)
		return
	}
	w.Header().Set("Cache-Control", "no-store")
	respond.JSON(w, http.StatusCreated, createdToken{Token: tok, Secret: secret})
}

func (a *API) listTokens(w http.ResponseWriter, r *http.Request) {
	list, err := a.d.Tokens.List(r.Context())
	if err != nil {
		a.fail(w, r, err)
		return
	}
	respond.JSON(w, http.StatusOK, map[string]any{"items": list})
}

func (a *API) revokeToken(w http.ResponseWriter, r *http.Request) {
	id := r.PathValue("id")
	err := a.d.Tokens.Revoke(r.Context(), id)
	if errors.Is(err, svctoken.ErrNotFound) {
		respond.Fail(w, http.StatusNotFound, err.Error())
		return
	}
	if err != nil {
		a.fail(w, r, err)
		return
	}
	respond.JSON(w, http.StatusOK, map[string]any{"removed": []string{id}})
}
