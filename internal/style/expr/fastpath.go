package expr

// numEvaler is implemented by nodes that can produce a number without
// building a Value (the renderer's hot path).
type numEvaler interface {
	evalNumber(c *EvalContext) (float64, error)
}

// evalNumberNode evaluates a number-typed node, preferring the fast path.
func evalNumberNode(c *EvalContext, n node) (float64, error) {
	if ne, ok := n.(numEvaler); ok {
		f, err := ne.evalNumber(c)
		if err != nil {
			return 0, tagError(err, n)
		}
		return f, nil
	}
	v, err := evalNode(c, n)
	return v.n, err
}

func (n *assertionNode) evalNumber(c *EvalContext) (float64, error) {
	if n.t.Kind == KindNumber && len(n.args) == 1 {
		if g, ok := n.args[0].(*compoundNode); ok && g.hasGetKey {
			if v, found := c.property(g.getKey); found && v.kind == KindNumber {
				return v.n, nil
			}
		}
	}
	v, err := n.eval(c)
	return v.n, err
}

func (n *interpolateNode) evalNumber(c *EvalContext) (float64, error) {
	if n.numOuts == nil {
		v, err := n.eval(c)
		return v.n, err
	}
	if len(n.labels) == 1 {
		return n.numOuts[0], nil
	}
	x, err := evalNumberNode(c, n.input)
	if err != nil {
		return 0, err
	}
	if x <= n.labels[0] {
		return n.numOuts[0], nil
	}
	last := len(n.labels) - 1
	if x >= n.labels[last] {
		return n.numOuts[last], nil
	}
	i := stopIndex(n.labels, x)
	return lerp(n.numOuts[i], n.numOuts[i+1], n.interp.factor(x, n.labels[i], n.labels[i+1])), nil
}

func (n *literalNode) evalNumber(*EvalContext) (float64, error) { return n.v.n, nil }

// boolEvaler is implemented by nodes that can produce a boolean without
// building a Value (filters).
type boolEvaler interface {
	evalBoolean(c *EvalContext) (bool, error)
}

func evalBoolNode(c *EvalContext, n node) (bool, error) {
	if be, ok := n.(boolEvaler); ok {
		b, err := be.evalBoolean(c)
		if err != nil {
			return false, tagError(err, n)
		}
		return b, nil
	}
	v, err := evalNode(c, n)
	return v.b, err
}

func (n *literalNode) evalBoolean(*EvalContext) (bool, error) { return n.v.b, nil }

func (n *compoundNode) evalBoolean(c *EvalContext) (bool, error) {
	switch n.name {
	case "all":
		for _, a := range n.args {
			b, err := evalBoolNode(c, a)
			if err != nil || !b {
				return false, err
			}
		}
		return true, nil
	case "any":
		for _, a := range n.args {
			b, err := evalBoolNode(c, a)
			if err != nil || b {
				return b, err
			}
		}
		return false, nil
	case "!":
		b, err := evalBoolNode(c, n.args[0])
		return !b, err
	}
	v, err := n.eval(c)
	return v.b, err
}

func (n *comparisonNode) evalBoolean(c *EvalContext) (bool, error) {
	if n.mode == comparePlain {
		l, err := evalOperand(c, n.lhs)
		if err != nil {
			return false, err
		}
		r, err := evalOperand(c, n.rhs)
		if err != nil {
			return false, err
		}
		return basicCompare(n.op, l, r), nil
	}
	v, err := n.eval(c)
	return v.b, err
}

// evalOperand evaluates literals and feature properties directly.
func evalOperand(c *EvalContext, n node) (Value, error) {
	switch t := n.(type) {
	case *literalNode:
		return t.v, nil
	case *compoundNode:
		if t.hasGetKey {
			if v, ok := c.property(t.getKey); ok {
				return v, nil
			}
			return Null(), nil
		}
	}
	return evalNode(c, n)
}

func (n *compoundNode) evalNumber(c *EvalContext) (float64, error) {
	switch n.name {
	case "zoom":
		return c.Zoom, nil
	case "heatmap-density":
		return c.HeatmapDensity, nil
	case "line-progress":
		return c.LineProgress, nil
	}
	v, err := n.eval(c)
	return v.n, err
}
