// Package blob keeps uploaded files as objects and takes them in parts:
// the multipart upload protocol of S3, where the client PUTs each part to a
// presigned URL (no credentials) and the server completes the upload with
// the parts' ETags.
//
// Two stores speak it: S3 (any S3-compatible service, through the AWS SDK
// for Go v2, which presigns, completes and aborts), and Local, where the
// server itself is the target: parts go to the local disk through URLs the
// server signs with an HMAC and an expiry. Both answer the same errors, so
// the ingest above them does not know which one it has.
package blob

import (
	"context"
	"errors"
	"time"
)

// Errors of the stores.
var (
	// ErrNotFound: no such object.
	ErrNotFound = errors.New("object not found")
	// ErrNoUpload: no such multipart upload (completed, aborted, or never
	// begun).
	ErrNoUpload = errors.New("multipart upload not found")
	// ErrParts is wrapped when the parts named to complete an upload do not
	// match the parts received (missing, unknown ETag, out of order, too
	// small): the client's fault.
	ErrParts = errors.New("the parts do not match the upload")
	// ErrForbidden is wrapped when a part URL's signature is wrong or has
	// expired (Local).
	ErrForbidden = errors.New("part URL refused")
	// ErrTooLarge is wrapped when a part is larger than allowed (Local).
	ErrTooLarge = errors.New("part too large")
)

// MinPartSize is S3's smallest part (except the last), which Local keeps
// too; MaxParts is S3's largest number of parts.
const (
	MinPartSize = 5 << 20
	MaxParts    = 10000
)

// Part names one uploaded part: its number (from 1) and the ETag its PUT
// answered.
type Part struct {
	Number int
	ETag   string
}

// Store is a place for objects that takes multipart uploads.
type Store interface {
	// CreateMultipart begins a multipart upload of the object key and
	// returns its id.
	CreateMultipart(ctx context.Context, key string) (uploadID string, err error)
	// PartURL returns the URL to which part number part (from 1) is PUT,
	// without credentials, until expires from now. Local returns a path
	// beginning with "/" that the caller puts under its service URL.
	PartURL(ctx context.Context, key, uploadID string, part int, expires time.Duration) (string, error)
	// Complete joins the parts, in order, into the object.
	Complete(ctx context.Context, key, uploadID string, parts []Part) error
	// Abort ends a multipart upload and drops its parts; ErrNoUpload when
	// there is none.
	Abort(ctx context.Context, key, uploadID string) error
	// Size returns the object's size; ErrNotFound when it does not exist.
	Size(ctx context.Context, key string) (int64, error)
	// Download writes the object to a new local file at path.
	Download(ctx context.Context, key, path string) error
	// Delete removes the object; deleting a missing object is no error.
	Delete(ctx context.Context, key string) error
}
