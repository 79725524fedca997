package admin

import (
	"errors"
	"net/http"
	"net/url"
	"time"

	"github.com/tesseramaps/tessera/internal/httpapi/respond"
	"github.com/tesseramaps/tessera/internal/ingest"
)

// IngestRecord is the tileset ingest record of the spec, plus the bytes
// received so far (for resuming an upload).
type IngestRecord struct {
	ID         string         `json:"id"`
	DocumentID string         `json:"document_id"`
	Filename   string         `json:"filename"`
	Size       int64          `json:"size"`
	State      string         `json:"state"`
	UploadURL  string         `json:"upload_url"`
	Errors     []ErrorMessage `json:"errors"`
	Received   int64          `json:"received"`
}

// ErrorMessage is one item of an ingest's errors.
type ErrorMessage struct {
	Message string `json:"message"`
}

func (a *API) record(r *http.Request, rec ingest.Record) IngestRecord {
	errs := []ErrorMessage{}
	for _, e := range rec.Errors {
		errs = append(errs, ErrorMessage{Message: e})
	}
	return IngestRecord{
		ID: rec.ID, DocumentID: rec.DocumentID, Filename: rec.Filename, Size: rec.Size, State: rec.State,
		UploadURL: respond.BaseURL(r, a.d.PublicURL) + Prefix + "/tiles/ingest/" + url.PathEscape(rec.ID) + "/upload",
		Errors:    errs, Received: rec.Received,
	}
}

// ingestCreate is the body of POST /tiles/ingest.
type ingestCreate struct {
	Filename string `json:"filename"`
	Size     *int64 `json:"size"`
}

func (a *API) createIngest(w http.ResponseWriter, r *http.Request) {
	var body ingestCreate
	if !respond.Decode(w, r, &body, false) {
		return
	}
	if body.Size == nil {
		respond.Fail(w, http.StatusBadRequest, "size (the file's size in bytes) is required")
		return
	}
	rec, err := a.d.Ingest.Create(r.Context(), body.Filename, *body.Size)
	if err != nil {
		a.fail(w, r, err)
		return
	}
	respond.JSON(w, http.StatusOK, a.record(r, rec))
}

// listIngests lists every ingest, newest first, paged like the other lists.
func (a *API) listIngests(w http.ResponseWriter, r *http.Request) {
	offset, limit, err := page(r)
	if err != nil {
		respond.Fail(w, http.StatusBadRequest, err.Error())
		return
	}
	all, err := a.d.Ingest.List(r.Context())
	if err != nil {
		a.fail(w, r, err)
		return
	}
	items := []IngestRecord{}
	for i := offset; i < len(all) && len(items) < limit; i++ {
		items = append(items, a.record(r, all[i]))
	}
	respond.JSON(w, http.StatusOK, map[string]any{"items": items, "total": len(all)})
}

// cancelIngest ends an ingest that is not being processed: its record and
// its upload file are removed.
func (a *API) cancelIngest(w http.ResponseWriter, r *http.Request) {
	id := r.PathValue("id")
	if err := a.d.Ingest.Cancel(r.Context(), id); err != nil {
		a.fail(w, r, err)
		return
	}
	respond.JSON(w, http.StatusOK, map[string]any{"removed": []string{id}})
}

func (a *API) getIngest(w http.ResponseWriter, r *http.Request) {
	rec, err := a.d.Ingest.Get(r.Context(), r.PathValue("id"))
	if err != nil {
		a.fail(w, r, err)
		return
	}
	respond.JSON(w, http.StatusOK, a.record(r, rec))
}

// upload takes the file's bytes: the whole file, or a chunk with
// Content-Range: bytes START-END/TOTAL. It answers 200 with the record
// when the file is complete and 202 with the record (received bytes) after
// a chunk that leaves it incomplete.
func (a *API) upload(w http.ResponseWriter, r *http.Request) {
	rng, err := ingest.RangeHeader(r.Header.Get("Content-Range"))
	if err != nil {
		respond.Fail(w, http.StatusBadRequest, err.Error())
		return
	}
	respond.LongRequest(w) // uploads may take long
	rec, err := a.d.Ingest.Upload(r.Context(), r.PathValue("id"), r.Body, rng)
	if err != nil {
		a.fail(w, r, err)
		return
	}
	status := http.StatusOK
	if rec.Received < rec.Size {
		status = http.StatusAccepted
	}
	respond.JSON(w, status, a.record(r, rec))
}

func (a *API) processIngest(w http.ResponseWriter, r *http.Request) {
	// Converting a large GeoJSON takes a while.
	http.NewResponseController(w).SetWriteDeadline(time.Now().Add(2 * time.Hour))
	e, err := a.d.Ingest.Process(r.Context(), r.PathValue("id"))
	if err != nil {
		if errors.Is(err, ingest.ErrState) {
			respond.Fail(w, http.StatusBadRequest, err.Error())
			return
		}
		a.fail(w, r, err)
		return
	}
	respond.JSON(w, http.StatusOK, a.detail(r, e))
}
