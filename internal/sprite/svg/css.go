package svg

import (
	"fmt"
	"slices"
	"strings"
)

// A small CSS engine for <style> elements: rules with type, class, id and universal
// selectors, compound selectors and descendant/child combinators. Other selectors are ignored.

type compound struct {
	tag     string // "" matches any
	id      string
	classes []string
}

type selector struct {
	parts []compound // left to right
	child []bool     // child[i]: parts[i] and parts[i+1] are joined by '>'
	spec  int
}

type decl struct{ name, value string }

type cssRule struct {
	sel   selector
	decls []decl
	order int
}

// parseDecls parses "a: b; c: d".
func parseDecls(s string) []decl {
	var out []decl
	for _, part := range strings.Split(s, ";") {
		k, v, ok := strings.Cut(part, ":")
		if !ok {
			continue
		}
		k = strings.ToLower(strings.TrimSpace(k))
		v = strings.TrimSpace(v)
		v = strings.TrimSpace(strings.TrimSuffix(v, "!important"))
		if k == "" || v == "" {
			continue
		}
		out = append(out, decl{k, v})
	}
	return out
}

func stripComments(s string) string {
	var sb strings.Builder
	for {
		i := strings.Index(s, "/*")
		if i < 0 {
			sb.WriteString(s)
			return sb.String()
		}
		sb.WriteString(s[:i])
		j := strings.Index(s[i+2:], "*/")
		if j < 0 {
			return sb.String()
		}
		s = s[i+2+j+2:]
	}
}

func parseCSS(src string, maxRules int, order *int) ([]cssRule, error) {
	src = stripComments(src)
	src = strings.ReplaceAll(src, "<!--", "")
	src = strings.ReplaceAll(src, "-->", "")
	var rules []cssRule
	for {
		src = strings.TrimSpace(src)
		if src == "" {
			return rules, nil
		}
		open := strings.IndexByte(src, '{')
		if open < 0 {
			return rules, nil
		}
		prelude := strings.TrimSpace(src[:open])
		// Find the matching close brace (at-rules may nest blocks).
		depth, end := 0, -1
		for i := open; i < len(src); i++ {
			if src[i] == '{' {
				depth++
			} else if src[i] == '}' {
				depth--
				if depth == 0 {
					end = i
					break
				}
			}
		}
		if end < 0 {
			return rules, nil
		}
		body := src[open+1 : end]
		src = src[end+1:]
		if strings.HasPrefix(prelude, "@") {
			continue // at-rules (@media, @font-face, @import...) are ignored
		}
		decls := parseDecls(body)
		for _, sel := range strings.Split(prelude, ",") {
			s, ok := parseSelector(sel)
			if !ok {
				continue
			}
			*order++
			rules = append(rules, cssRule{sel: s, decls: decls, order: *order})
			if len(rules) > maxRules {
				return nil, fmt.Errorf("%w: more than %d CSS rules", ErrTooLarge, maxRules)
			}
		}
	}
}

func parseSelector(s string) (selector, bool) {
	s = strings.TrimSpace(s)
	if s == "" {
		return selector{}, false
	}
	s = strings.ReplaceAll(s, ">", " > ")
	var sel selector
	pendingChild := false
	for _, tok := range strings.Fields(s) {
		if tok == ">" {
			if len(sel.parts) == 0 || pendingChild {
				return selector{}, false
			}
			pendingChild = true
			continue
		}
		c, spec, ok := parseCompound(tok)
		if !ok {
			return selector{}, false
		}
		if len(sel.parts) > 0 {
			sel.child = append(sel.child, pendingChild)
		}
		pendingChild = false
		sel.parts = append(sel.parts, c)
		sel.spec += spec
	}
	if pendingChild || len(sel.parts) == 0 {
		return selector{}, false
	}
	return sel, true
}

func parseCompound(tok string) (compound, int, bool) {
	var c compound
	spec := 0
	i := 0
	readName := func() string {
		j := i
		for j < len(tok) && tok[j] != '.' && tok[j] != '#' {
			j++
		}
		name := tok[i:j]
		i = j
		return name
	}
	if tok[0] != '.' && tok[0] != '#' {
		name := readName()
		if name != "*" {
			c.tag = name
			spec++
		}
	}
	for i < len(tok) {
		kind := tok[i]
		i++
		name := readName()
		if name == "" {
			return c, 0, false
		}
		if kind == '#' {
			c.id = name
			spec += 10000
		} else {
			c.classes = append(c.classes, name)
			spec += 100
		}
	}
	if strings.ContainsAny(tok, "[]:+~()") || strings.Contains(tok[1:], "*") {
		return c, 0, false
	}
	return c, spec, true
}

func (c compound) matches(n *node) bool {
	if c.tag != "" && c.tag != n.tag {
		return false
	}
	if c.id != "" && n.attrs["id"] != c.id {
		return false
	}
	if len(c.classes) > 0 {
		have := strings.Fields(n.attrs["class"])
		for _, want := range c.classes {
			if !slices.Contains(have, want) {
				return false
			}
		}
	}
	return true
}

func (s selector) matches(n *node) bool {
	k := len(s.parts) - 1
	if !s.parts[k].matches(n) {
		return false
	}
	cur := n
	for k > 0 {
		k--
		child := s.child[k]
		p := cur.parent
		found := false
		for p != nil {
			if s.parts[k].matches(p) {
				found = true
				break
			}
			if child {
				break
			}
			p = p.parent
		}
		if !found {
			return false
		}
		cur = p
	}
	return true
}

// applyCSS resolves the style properties of every node: presentation attributes (already in
// props), overridden by matching <style> rules in specificity order, overridden by the style
// attribute.
func (d *Document) applyCSS() error {
	var rules []cssRule
	order := 0
	var collect func(n *node) error
	collect = func(n *node) error {
		if n.tag == "style" {
			if t := n.attrs["type"]; t == "" || strings.Contains(t, "css") {
				r, err := parseCSS(n.text.String(), d.lim.MaxCSSRules-len(rules), &order)
				if err != nil {
					return err
				}
				rules = append(rules, r...)
			}
		}
		for _, c := range n.children {
			if err := collect(c); err != nil {
				return err
			}
		}
		return nil
	}
	if err := collect(d.root); err != nil {
		return err
	}
	slices.SortStableFunc(rules, func(a, b cssRule) int {
		if a.sel.spec != b.sel.spec {
			return a.sel.spec - b.sel.spec
		}
		return a.order - b.order
	})
	work := 0
	var apply func(n *node, depth int) error
	apply = func(n *node, depth int) error {
		for _, r := range rules {
			work++
			if len(r.sel.parts) > 1 {
				work += depth // ancestor walk
			}
			if work > 20_000_000 {
				return fmt.Errorf("%w: CSS matching too expensive", ErrTooLarge)
			}
			if r.sel.matches(n) {
				for _, dc := range r.decls {
					n.props[dc.name] = dc.value
				}
			}
		}
		if st := n.attrs["style"]; st != "" {
			for _, dc := range parseDecls(st) {
				n.props[dc.name] = dc.value
			}
		}
		for _, c := range n.children {
			if err := apply(c, depth+1); err != nil {
				return err
			}
		}
		return nil
	}
	return apply(d.root, 0)
}
