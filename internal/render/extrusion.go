package render

import (
	"github.com/tesseramaps/tessera/internal/style"
)

func (lr *layerRender) extrusion(feats []sourceFeature, st *style.Style) {}
