//go:build !proj || !cgo

package coords

import "context"

// Available tells that this build transforms and exports with libproj: not
// this one (built without the "proj" tag or without cgo).
const Available = false

// PROJVersion is the version of the libproj linked in: none.
func PROJVersion() string { return "" }

// Engine stands for PROJ in builds without it: every call is ErrNoPROJ.
type Engine struct{}

// NewEngine makes the stand-in engine.
func NewEngine(int) *Engine { return &Engine{} }

// Close does nothing.
func (*Engine) Close() {}

// Export is ErrNoPROJ.
func (*Engine) Export(context.Context, Ref, Category) (Exports, error) { return Exports{}, ErrNoPROJ }

// Transform is ErrNoPROJ.
func (*Engine) Transform(context.Context, TransformRequest) (*TransformResult, error) {
	return nil, ErrNoPROJ
}
