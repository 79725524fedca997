package expr

// Point is a geometry vertex in tile coordinates.
type Point struct{ X, Y float64 }

// TileID identifies the canonical tile a feature comes from.
type TileID struct{ Z, X, Y int }

// Feature is what expressions read feature data from. Implementations should
// not allocate in Property for the evaluation fast paths to stay allocation-free.
type Feature interface {
	// Property returns a feature property.
	Property(key string) (Value, bool)
	// Properties returns all properties as an object.
	Properties() *Object
	// ID returns the feature id, or Null().
	ID() Value
	// GeometryType returns "Point", "LineString", "Polygon" (multi-geometries
	// report their single form) or "" when unknown.
	GeometryType() string
	// Geometry returns points, lines or polygon rings in tile coordinates
	// (0..Extent for the canonical tile), or nil when not available.
	Geometry() [][]Point
}

// MapFeature is a simple Feature backed by an Object.
type MapFeature struct {
	Props *Object
	Id    Value
	Type  string
	Geom  [][]Point
}

// Property implements Feature.
func (f *MapFeature) Property(key string) (Value, bool) { return f.Props.Get(key) }

// Properties implements Feature.
func (f *MapFeature) Properties() *Object {
	if f.Props == nil {
		return &Object{}
	}
	return f.Props
}

// ID implements Feature.
func (f *MapFeature) ID() Value { return f.Id }

// GeometryType implements Feature.
func (f *MapFeature) GeometryType() string { return f.Type }

// Geometry implements Feature.
func (f *MapFeature) Geometry() [][]Point { return f.Geom }

// DefaultExtent is the tile extent geometry coordinates are expressed in
// when EvalContext.Extent is zero.
const DefaultExtent = 8192

// EvalContext holds everything an expression may read while evaluating.
type EvalContext struct {
	Zoom           float64
	HeatmapDensity float64
	Elevation      float64
	LineProgress   float64
	// Accumulated is the cluster accumulated value (accumulated); nil means null.
	Accumulated *float64

	Feature      Feature
	FeatureState *Object
	GlobalState  *Object

	// AvailableImages lists image names known to the style (image expression).
	AvailableImages map[string]bool
	// Canonical is the tile the feature geometry belongs to (within, distance).
	Canonical *TileID
	// Extent of the tile coordinates of Feature.Geometry (DefaultExtent when 0).
	Extent float64
	// IsSupportedScript reports whether a string's script can be rendered; nil: always true.
	IsSupportedScript func(string) bool
}

func (c *EvalContext) property(key string) (Value, bool) {
	if c.Feature == nil {
		return Value{}, false
	}
	return c.Feature.Property(key)
}

func (c *EvalContext) properties() *Object {
	if c.Feature == nil {
		return &Object{}
	}
	return c.Feature.Properties()
}

func (c *EvalContext) geometryType() string {
	if c.Feature == nil {
		return ""
	}
	return c.Feature.GeometryType()
}

func (c *EvalContext) extent() float64 {
	if c.Extent > 0 {
		return c.Extent
	}
	return DefaultExtent
}
