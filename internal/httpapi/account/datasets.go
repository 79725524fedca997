package account

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"net/url"
	"strconv"
	"strings"
	"time"

	"github.com/tesseramaps/tessera/internal/blob"
	"github.com/tesseramaps/tessera/internal/httpapi/respond"
	"github.com/tesseramaps/tessera/internal/httpapi/route"
	"github.com/tesseramaps/tessera/internal/ingest"
)

// PartsPath is where the parts of multipart uploads are PUT when the
// server itself is the target (no S3 configured): PartsPath/UPLOAD/PART
// with the signed query the ingest answer gives.
const PartsPath = Prefix + "/datasets/parts"

// DatasetIngest is the dataset ingest record of the spec, with the
// multipart upload's parts (the convention of existing clients) and the
// bytes received by a resumable upload.
type DatasetIngest struct {
	ID         string         `json:"id"`
	DocumentID *string        `json:"document_id"`
	State      string         `json:"state"`
	Filename   string         `json:"filename"`
	Size       int64          `json:"size"`
	Errors     []ErrorMessage `json:"errors"`
	Progress   float64        `json:"progress"`
	UploadURL  string         `json:"upload_url"`
	Upload     *UploadInfo    `json:"upload"`
	Output     *Output        `json:"output"`
}

// ErrorMessage is one item of an ingest's errors.
type ErrorMessage struct {
	Message string `json:"message"`
}

// UploadInfo says how to send the file: for s3_multipart the part size
// and the URL of every part; for resumable the bytes received so far.
type UploadInfo struct {
	Type     string     `json:"type"`
	PartSize int64      `json:"part_size,omitempty"`
	Parts    []PartLink `json:"parts,omitempty"`
	Received *int64     `json:"received,omitempty"`
}

// PartLink is one part's URL.
type PartLink struct {
	PartID int    `json:"part_id"`
	URL    string `json:"url"`
}

// Output is the kind of tileset asked for.
type Output struct {
	Type string `json:"type"`
}

// datasetCreate is the body DatasetIngestCreate.
type datasetCreate struct {
	Filename             *string  `json:"filename"`
	Size                 *int64   `json:"size"`
	Output               *Output  `json:"output"`
	SupportedUploadTypes []string `json:"supported_upload_types"`
}

// datasetProcess is the body DatasetIngestProcess.
type datasetProcess struct {
	UploadResult *struct {
		Type  string `json:"type"`
		Parts []struct {
			PartID int    `json:"part_id"`
			ETag   string `json:"etag"`
		} `json:"parts"`
	} `json:"upload_result"`
}

// datasets serves the dataset ingest endpoints.
type datasets struct {
	*API
	svc *ingest.Datasets
}

// RegisterDatasets adds the dataset ingest routes: create, replace, get,
// cancel and process on the account table t (behind the service token),
// and on the server's table pub the two routes that take bytes without
// credentials, as a browser sends them: the resumable upload URL (its path
// holds the ingest's random id, like the admin API's upload URL) and, when
// the server is the multipart target, the part URLs (signed, expiring).
func (a *API) RegisterDatasets(t *route.Table, pub route.Router, svc *ingest.Datasets) {
	h := datasets{API: a, svc: svc}
	p := Prefix
	t.HandleFunc("POST "+p+"/datasets/ingest", h.create)
	t.HandleFunc("POST "+p+"/datasets/{id}/ingest", h.create)
	t.Handle("GET "+p+"/datasets/ingest/{id}", h.byID(svc.Get))
	t.Handle("POST "+p+"/datasets/ingest/{id}/cancel", h.byID(svc.Cancel))
	t.HandleFunc("POST "+p+"/datasets/ingest/{id}/process", h.process)
	pub.HandleFunc("PUT "+p+"/datasets/ingest/{id}/upload", h.upload)
	pub.HandleFunc("PUT "+PartsPath+"/{upload}/{part}", h.putPart)
}

// view makes the answer of an ingest.
func (h datasets) view(r *http.Request, rec ingest.DatasetRecord) DatasetIngest {
	base := respond.BaseURL(r, h.d.PublicURL)
	out := DatasetIngest{ID: rec.ID, State: rec.State, Filename: rec.Filename, Size: rec.Size, Progress: rec.Progress}
	if rec.TilesetID != "" {
		id := rec.TilesetID
		out.DocumentID = &id
	}
	for _, e := range rec.Errors {
		out.Errors = append(out.Errors, ErrorMessage{Message: e})
	}
	if rec.OutputType != "" {
		out.Output = &Output{Type: rec.OutputType}
	}
	switch rec.UploadType {
	case ingest.UploadResumable:
		out.UploadURL = base + Prefix + "/datasets/ingest/" + url.PathEscape(rec.ID) + "/upload"
		if rec.State == "upload" {
			n := rec.Received
			out.Upload = &UploadInfo{Type: ingest.UploadResumable, Received: &n}
		}
	case ingest.UploadS3Multipart:
		if len(rec.Parts) == 0 {
			break
		}
		up := &UploadInfo{Type: ingest.UploadS3Multipart, PartSize: rec.PartSize}
		for _, p := range rec.Parts {
			u := p.URL
			if strings.HasPrefix(u, "/") { // the server's own part URL (PartsPath)
				u = base + u
			}
			up.Parts = append(up.Parts, PartLink{PartID: p.Number, URL: u})
		}
		out.Upload = up
		// A file of one part can be PUT whole to upload_url.
		out.UploadURL = up.Parts[0].URL
	}
	return out
}

func (h datasets) create(w http.ResponseWriter, r *http.Request) {
	var target string
	if r.PathValue("id") != "" {
		e, ok := h.entry(w, r) // 400, 404 or 410 for a bad target
		if !ok {
			return
		}
		target = e.ID
	}
	var body datasetCreate
	if !respond.Decode(w, r, &body, false) {
		return
	}
	switch {
	case body.Filename == nil:
		respond.Fail(w, http.StatusBadRequest, "filename is required")
		return
	case body.Size == nil:
		respond.Fail(w, http.StatusBadRequest, "size (the file's size in bytes) is required")
		return
	}
	req := ingest.DatasetCreate{Filename: *body.Filename, Size: *body.Size, UploadTypes: body.SupportedUploadTypes, DocumentID: target}
	if body.Output != nil {
		req.OutputType = body.Output.Type
	}
	rec, err := h.svc.Create(r.Context(), req)
	if err != nil {
		h.failIngest(w, r, err)
		return
	}
	respond.JSON(w, http.StatusOK, h.view(r, rec))
}

// byID answers an action on the ingest of the path's id with the ingest.
func (h datasets) byID(do func(ctx context.Context, id string) (ingest.DatasetRecord, error)) http.HandlerFunc {
	return func(w http.ResponseWriter, r *http.Request) {
		id, ok := pathUUID(w, r, "ingest")
		if !ok {
			return
		}
		rec, err := do(r.Context(), id)
		if err != nil {
			h.failIngest(w, r, err)
			return
		}
		respond.JSON(w, http.StatusOK, h.view(r, rec))
	}
}

func (h datasets) process(w http.ResponseWriter, r *http.Request) {
	id, ok := pathUUID(w, r, "ingest")
	if !ok {
		return
	}
	var body datasetProcess
	if !respond.Decode(w, r, &body, true) {
		return
	}
	var res ingest.UploadResult
	if body.UploadResult != nil {
		res.Type = body.UploadResult.Type
		for _, p := range body.UploadResult.Parts {
			res.Parts = append(res.Parts, blob.Part{Number: p.PartID, ETag: p.ETag})
		}
	}
	// Completing a large multipart upload may take a while.
	http.NewResponseController(w).SetWriteDeadline(time.Now().Add(10 * time.Minute))
	rec, err := h.svc.Process(r.Context(), id, res)
	if err != nil {
		h.failIngest(w, r, err)
		return
	}
	respond.JSON(w, http.StatusOK, h.view(r, rec))
}

// upload takes the bytes of a resumable upload: the whole file, or a chunk
// with Content-Range: bytes START-END/TOTAL. It answers 200 with the record
// when the file is complete and 202 after a chunk that leaves it
// incomplete (upload.received says where to resume).
func (h datasets) upload(w http.ResponseWriter, r *http.Request) {
	id, ok := pathUUID(w, r, "ingest")
	if !ok {
		return
	}
	rng, err := ingest.RangeHeader(r.Header.Get("Content-Range"))
	if err != nil {
		respond.Fail(w, http.StatusBadRequest, err.Error())
		return
	}
	respond.LongRequest(w)
	rec, err := h.svc.Upload(r.Context(), id, r.Body, rng)
	if err != nil {
		h.failIngest(w, r, err)
		return
	}
	status := http.StatusOK
	if rec.Received < rec.Size {
		status = http.StatusAccepted
	}
	respond.JSON(w, status, h.view(r, rec))
}

// putPart takes one part of a multipart upload whose target is the server
// and answers its ETag, as S3 does.
func (h datasets) putPart(w http.ResponseWriter, r *http.Request) {
	part, err := strconv.Atoi(r.PathValue("part"))
	if err != nil || part < 1 || part > blob.MaxParts {
		respond.Fail(w, http.StatusBadRequest, fmt.Sprintf("part number %q is not a whole number from 1 to %d", truncate(r.PathValue("part")), blob.MaxParts))
		return
	}
	respond.LongRequest(w)
	etag, err := h.svc.PutPart(r.Context(), r.PathValue("upload"), part, r.URL.Query(), r.Body)
	if err != nil {
		h.failIngest(w, r, err)
		return
	}
	w.Header().Set("ETag", etag)
	w.WriteHeader(http.StatusOK)
}

// failIngest answers an error of the ingest service.
func (h datasets) failIngest(w http.ResponseWriter, r *http.Request, err error) {
	switch {
	case errors.Is(err, ingest.ErrNotFound):
		respond.Fail(w, http.StatusNotFound, err.Error())
	case errors.Is(err, ingest.ErrQuota), errors.Is(err, ingest.ErrForbidden):
		respond.Fail(w, http.StatusForbidden, err.Error())
	case errors.Is(err, ingest.ErrInvalid):
		respond.Fail(w, http.StatusBadRequest, err.Error())
	case errors.Is(err, ingest.ErrTooLarge):
		respond.Fail(w, http.StatusRequestEntityTooLarge, err.Error())
	case errors.Is(err, ingest.ErrState), errors.Is(err, ingest.ErrBusy):
		respond.Fail(w, http.StatusConflict, err.Error())
	default:
		h.fail(w, r, err)
	}
}
