package expr

import (
	"fmt"
	"math"
	"strings"
	"sync"
	"unicode"

	"golang.org/x/text/collate"
	"golang.org/x/text/language"
	"golang.org/x/text/unicode/norm"
)

// defaultLocale is the locale used when none is requested or the requested
// one is not supported.
const defaultLocale = "en-US"

// Collator compares strings with locale-aware rules (usage "search").
type Collator struct {
	caseSensitive, diacriticSensitive bool
	resolved                          string
	collTag                           language.Tag
	opts                              []collate.Option
	key                               string
	caseLevel                         bool
}

var collatorMatcher = sync.OnceValue(func() language.Matcher { return language.NewMatcher(collate.Supported()) })

// NewCollator returns a collator for a BCP 47 locale ("" for the default).
func NewCollator(caseSensitive, diacriticSensitive bool, locale string) *Collator {
	c := &Collator{caseSensitive: caseSensitive, diacriticSensitive: diacriticSensitive, resolved: defaultLocale}
	tag := language.AmericanEnglish
	if locale != "" {
		if t, err := language.Parse(locale); err == nil {
			if _, _, conf := collatorMatcher().Match(t); conf >= language.High {
				tag = t
				c.resolved = t.String()
			}
		}
	}
	c.collTag = tag
	// CLDR's search collation for German equates ä/ö/ü with ae/oe/ue (at the
	// secondary level); x/text has no search tables, and the phonebook
	// tailoring has the same rules for these letters.
	if b, _ := tag.Base(); b.String() == "de" {
		c.collTag = language.MustParse("de-u-co-phonebk")
	}
	if !caseSensitive {
		c.opts = append(c.opts, collate.IgnoreCase, collate.IgnoreWidth)
	}
	if !diacriticSensitive {
		c.opts = append(c.opts, collate.IgnoreDiacritics)
	}
	if caseSensitive && !diacriticSensitive {
		// ICU's "case" sensitivity is primary strength plus a case level;
		// x/text would still see diacritics at the tertiary level, so compare
		// at primary strength and add the case level ourselves.
		c.opts = []collate.Option{collate.IgnoreCase, collate.IgnoreWidth, collate.IgnoreDiacritics}
		c.caseLevel = true
	}
	c.key = fmt.Sprintf("%s|%v|%v", c.collTag, caseSensitive, diacriticSensitive)
	return c
}

// ResolvedLocale returns the locale the collator uses.
func (c *Collator) ResolvedLocale() string { return c.resolved }

var collatorPools sync.Map // key -> *sync.Pool of *collate.Collator

// Compare returns -1, 0 or 1.
func (c *Collator) Compare(a, b string) int {
	p, _ := collatorPools.LoadOrStore(c.key, &sync.Pool{New: func() any { return collate.New(c.collTag, c.opts...) }})
	pool := p.(*sync.Pool)
	coll := pool.Get().(*collate.Collator)
	r := coll.CompareString(a, b)
	pool.Put(coll)
	if r == 0 && c.caseLevel {
		return caseLevelCompare(a, b)
	}
	return r
}

// caseLevelCompare compares the case of the letters of two strings that are
// equal at primary strength: lowercase sorts before uppercase, and missing
// letters count as lowercase.
func caseLevelCompare(a, b string) int {
	ka, kb := caseKey(a), caseKey(b)
	for i := 0; i < len(ka) || i < len(kb); i++ {
		var x, y bool
		if i < len(ka) {
			x = ka[i]
		}
		if i < len(kb) {
			y = kb[i]
		}
		if x != y {
			if !x {
				return -1
			}
			return 1
		}
	}
	return 0
}

func caseKey(s string) []bool {
	var k []bool
	for _, r := range norm.NFD.String(s) {
		if unicode.IsLetter(r) {
			k = append(k, unicode.IsUpper(r) || unicode.IsTitle(r))
		}
	}
	return k
}

// collatorNode: ["collator", {options}].
type collatorNode struct {
	nodeBase
	caseSensitive, diacriticSensitive, locale node
}

func (n *collatorNode) each(fn func(node)) {
	fn(n.caseSensitive)
	fn(n.diacriticSensitive)
	if n.locale != nil {
		fn(n.locale)
	}
}

func (n *collatorNode) eval(c *EvalContext) (Value, error) {
	cs, err := evalBool(c, n.caseSensitive)
	if err != nil {
		return Value{}, err
	}
	ds, err := evalBool(c, n.diacriticSensitive)
	if err != nil {
		return Value{}, err
	}
	loc := ""
	if n.locale != nil {
		if loc, err = evalStr(c, n.locale); err != nil {
			return Value{}, err
		}
	}
	return collatorValue(NewCollator(cs, ds, loc)), nil
}

func optionOr(o *jobj, key string, def any) any {
	if v, ok := o.get(key); ok {
		return v
	}
	return def
}

func parseCollator(args []any, c *compiler) node {
	if len(args) != 2 {
		return c.fail("Expected one argument.")
	}
	opts, ok := args[1].(*jobj)
	if !ok {
		return c.fail("Collator options argument must be an object.")
	}
	n := &collatorNode{nodeBase: nodeBase{t: CollatorType}}
	if n.caseSensitive = c.compileArg(optionOr(opts, "case-sensitive", false), 1, &BooleanType); n.caseSensitive == nil {
		return nil
	}
	if n.diacriticSensitive = c.compileArg(optionOr(opts, "diacritic-sensitive", false), 1, &BooleanType); n.diacriticSensitive == nil {
		return nil
	}
	if l, ok := opts.get("locale"); ok && jsTruthyJSON(l) {
		if n.locale = c.compileArg(l, 1, &StringType); n.locale == nil {
			return nil
		}
	}
	return n
}

func jsTruthyJSON(v any) bool { return truthy(jsonToValue(v)) }

// formatNode: ["format", content, {options}, ...].
type formatSection struct {
	content                    node
	scale, font, color, valign node
}

type formatNode struct {
	nodeBase
	sections []formatSection
}

func (n *formatNode) each(fn func(node)) {
	for _, s := range n.sections {
		fn(s.content)
		for _, o := range []node{s.scale, s.font, s.color, s.valign} {
			if o != nil {
				fn(o)
			}
		}
	}
}

func (n *formatNode) eval(c *EvalContext) (Value, error) {
	out := &Formatted{}
	for _, s := range n.sections {
		v, err := evalNode(c, s.content)
		if err != nil {
			return Value{}, err
		}
		var sec FormattedSection
		if v.Kind() == KindResolvedImage {
			sec.Image = v.Image()
		} else {
			sec.Text = toStringValue(v)
			if s.scale != nil {
				f, err := evalNum(c, s.scale)
				if err != nil {
					return Value{}, err
				}
				sec.Scale = &f
			}
			if s.font != nil {
				f, err := evalNode(c, s.font)
				if err != nil {
					return Value{}, err
				}
				parts := make([]string, 0, len(f.Items()))
				for _, it := range f.Items() {
					parts = append(parts, toStringValue(it))
				}
				fs := strings.Join(parts, ",")
				sec.FontStack = &fs
			}
			if s.color != nil {
				col, err := evalNode(c, s.color)
				if err != nil {
					return Value{}, err
				}
				cc := col.Color()
				sec.TextColor = &cc
			}
		}
		if s.valign != nil {
			va, err := evalStr(c, s.valign)
			if err != nil {
				return Value{}, err
			}
			sec.VerticalAlign = &va
		}
		out.Sections = append(out.Sections, sec)
	}
	return formattedValue(out), nil
}

// formatOption is one key of a section's options object: the type its
// value must have and the section field it sets.
type formatOption struct {
	key  string
	want Type
	slot func(*formatSection) *node
}

var formatOptions = []formatOption{
	{"font-scale", NumberType, func(s *formatSection) *node { return &s.scale }},
	{"text-font", ArrayOf(StringType, -1), func(s *formatSection) *node { return &s.font }},
	{"text-color", ColorType, func(s *formatSection) *node { return &s.color }},
	{"vertical-align", StringType, func(s *formatSection) *node { return &s.valign }},
}

// parseFormat reads ["format", content, options?, content, options?, ...]:
// each section is a content expression, optionally followed by an object
// of options. Options whose value is falsy are left out.
func parseFormat(args []any, c *compiler) node {
	if len(args) < 2 {
		return c.fail("Expected at least one argument.")
	}
	if _, isObj := args[1].(*jobj); isObj {
		return c.fail("First argument must be an image or text section.")
	}
	n := &formatNode{nodeBase: nodeBase{t: FormattedType}}
	for i := 1; i < len(args); i++ {
		content := c.compileArg(args[i], 1, &ValueType)
		if content == nil {
			return nil
		}
		switch content.base().t.Kind {
		case KindString, KindValue, KindNull, KindResolvedImage:
		default:
			return c.fail("Formatted text type must be 'string', 'value', 'image' or 'null'.")
		}
		sec := formatSection{content: content}
		if opts, isObj := elementAt(args, i+1).(*jobj); isObj {
			i++
			if !sec.readOptions(c, opts) {
				return nil
			}
		}
		n.sections = append(n.sections, sec)
	}
	return n
}

func elementAt(args []any, i int) any {
	if i < len(args) {
		return args[i]
	}
	return nil
}

// readOptions compiles the options of a section.
func (sec *formatSection) readOptions(c *compiler, opts *jobj) bool {
	for _, o := range formatOptions {
		v, ok := opts.get(o.key)
		if !ok || !jsTruthyJSON(v) {
			continue
		}
		if s, isStr := v.(string); isStr && o.key == "vertical-align" && s != "bottom" && s != "center" && s != "top" {
			c.fail(fmt.Sprintf("'vertical-align' must be one of: 'bottom', 'center', 'top' but found '%s' instead.", s))
			return false
		}
		want := o.want
		slot := o.slot(sec)
		if *slot = c.compileArg(v, 1, &want); *slot == nil {
			return false
		}
	}
	return true
}

// imageNode: ["image", name].
type imageNode struct {
	nodeBase
	name node
}

func (n *imageNode) each(fn func(node)) { fn(n.name) }

func (n *imageNode) eval(c *EvalContext) (Value, error) {
	s, err := evalStr(c, n.name)
	if err != nil {
		return Value{}, err
	}
	if s == "" {
		return Null(), nil
	}
	return imageValue(&ResolvedImage{Name: s, Available: c.AvailableImages[s]}), nil
}

func parseImage(args []any, c *compiler) node {
	if len(args) != 2 {
		return c.fail("Expected two arguments.")
	}
	name := c.compileArg(args[1], 1, &StringType)
	if name == nil {
		return c.fail("No image name provided.")
	}
	return &imageNode{nodeBase: nodeBase{t: ImageType}, name: name}
}

// globalStateNode: ["global-state", "name"].
type globalStateNode struct {
	nodeBase
	name string
}

func (n *globalStateNode) each(func(node)) {}

func (n *globalStateNode) eval(c *EvalContext) (Value, error) {
	return getFrom(n.name, c.GlobalState), nil
}

func parseGlobalState(args []any, c *compiler) node {
	if len(args) != 2 {
		return c.fail(fmt.Sprintf("Expected 1 argument, but found %d instead.", len(args)-1))
	}
	name, ok := args[1].(string)
	switch {
	case args[1] == nil:
		return c.fail("Global state property must be defined.")
	case !ok:
		return c.fail(fmt.Sprintf("Global state property must be string, but found %s instead.", jsTypeof(args[1])))
	}
	return &globalStateNode{nodeBase: nodeBase{t: ValueType}, name: name}
}

// numberFormatNode: ["number-format", number, {options}].
type numberFormatNode struct {
	nodeBase
	number, locale, currency, unit, minFrac, maxFrac node
}

func (n *numberFormatNode) each(fn func(node)) {
	for _, x := range []node{n.number, n.locale, n.currency, n.unit, n.minFrac, n.maxFrac} {
		if x != nil {
			fn(x)
		}
	}
}

func (n *numberFormatNode) eval(c *EvalContext) (Value, error) {
	x, err := evalNum(c, n.number)
	if err != nil {
		return Value{}, err
	}
	var o numberFormatOptions
	o.minFrac, o.maxFrac = -1, -1
	if n.locale != nil {
		if o.locale, err = evalStr(c, n.locale); err != nil {
			return Value{}, err
		}
	}
	if n.currency != nil {
		if o.currency, err = evalStr(c, n.currency); err != nil {
			return Value{}, err
		}
	}
	if n.unit != nil {
		if o.unit, err = evalStr(c, n.unit); err != nil {
			return Value{}, err
		}
	}
	for _, p := range []struct {
		n   node
		dst *int
	}{{n.minFrac, &o.minFrac}, {n.maxFrac, &o.maxFrac}} {
		if p.n == nil {
			continue
		}
		f, err := evalNum(c, p.n)
		if err != nil {
			return Value{}, err
		}
		if f < 0 || f > 100 || math.IsNaN(f) {
			return Value{}, evalErr("fraction digits value is out of range.")
		}
		*p.dst = int(f)
	}
	s, err := formatNumber(x, o)
	if err != nil {
		return Value{}, evalMsg(err.Error())
	}
	return String(s), nil
}

func parseNumberFormat(args []any, c *compiler) node {
	if len(args) != 3 {
		return c.fail("Expected two arguments.")
	}
	n := &numberFormatNode{nodeBase: nodeBase{t: StringType}}
	if n.number = c.compileArg(args[1], 1, &NumberType); n.number == nil {
		return nil
	}
	opts, ok := args[2].(*jobj)
	if !ok {
		return c.fail("NumberFormat options argument must be an object.")
	}
	for _, p := range []struct {
		key string
		dst *node
		t   *Type
	}{{"locale", &n.locale, &StringType}, {"currency", &n.currency, &StringType}, {"unit", &n.unit, &StringType}} {
		if v, ok := opts.get(p.key); ok && jsTruthyJSON(v) {
			if *p.dst = c.compileArg(v, 1, p.t); *p.dst == nil {
				return nil
			}
		}
	}
	if n.currency != nil && n.unit != nil {
		return c.fail("NumberFormat options `currency` and `unit` are mutually exclusive")
	}
	for _, p := range []struct {
		key string
		dst *node
	}{{"min-fraction-digits", &n.minFrac}, {"max-fraction-digits", &n.maxFrac}} {
		if v, ok := opts.get(p.key); ok && jsTruthyJSON(v) {
			if *p.dst = c.compileArg(v, 1, &NumberType); *p.dst == nil {
				return nil
			}
		}
	}
	return n
}
