package geocode

import "testing"

func TestRealBuild(t *testing.T) {
	if testing.Short() {
		t.Skip("short")
	}
	ix := openRealIndex(t)
	t.Logf("features=%d names=%d tokens=%d build=%v load=%v", ix.Len(), ix.meta.Names, ix.meta.Tokens, realBuild, realLoad)
}
