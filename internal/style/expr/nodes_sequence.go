package expr

import "fmt"

// The operators on sequences (arrays and strings) that take a fixed list
// of arguments: "at", "in", "index-of" and "slice". Each is described by a
// seqOp; compileSeq compiles any of them from its description.

// needleKinds are the kinds of value "in" and "index-of" look for: the
// values a string or array can be searched for (the style specification's
// "boolean, string, number or null"). Statically a value-typed needle is
// accepted too and checked when evaluated.
var needleKinds = kinds(KindBoolean, KindString, KindNumber, KindNull)

// needleNames and sequenceNames name needleKinds and the searchable kinds
// in error messages.
const (
	needleNames   = "boolean, string, number or null"
	sequenceNames = "array or string"
)

// seqOp describes one sequence operator.
type seqOp struct {
	// required and optional count the arguments: the operator takes from
	// required to required+optional of them.
	required, optional int
	// wants gives the type wanted at each argument position (index 0 is
	// argument 1), given the type wanted of the whole (nil: none).
	wants func(whole *Type) []*Type
	// first, when not 0, holds the static kinds argument 1 may have;
	// firstNames names them in the error.
	first      kindSet
	firstNames string
	// build makes the node from the compiled arguments (an optional one
	// that is absent is nil).
	build func(args []node) node
}

var arrayOfValues = ArrayOf(ValueType, -1)

var seqOps = map[string]seqOp{
	"at": {
		required: 2,
		wants: func(whole *Type) []*Type {
			item := ValueType
			if whole != nil {
				item = *whole
			}
			arr := ArrayOf(item, -1)
			return []*Type{&NumberType, &arr}
		},
		build: func(a []node) node {
			return &atNode{nodeBase: nodeBase{t: a[1].base().t.item()}, index: a[0], input: a[1]}
		},
	},
	"in": {
		required: 2,
		wants:    func(*Type) []*Type { return []*Type{&ValueType, &ValueType} },
		first:    needleKinds | kinds(KindValue), firstNames: needleNames,
		build: func(a []node) node {
			return &inNode{nodeBase: nodeBase{t: BooleanType}, needle: a[0], haystack: a[1]}
		},
	},
	"index-of": {
		required: 2, optional: 1,
		wants: func(*Type) []*Type { return []*Type{&ValueType, &ValueType, &NumberType} },
		first: needleKinds | kinds(KindValue), firstNames: needleNames,
		build: func(a []node) node {
			return &indexOfNode{nodeBase: nodeBase{t: NumberType}, needle: a[0], haystack: a[1], from: a[2]}
		},
	},
	"slice": {
		required: 2, optional: 1,
		wants: func(*Type) []*Type { return []*Type{&ValueType, &NumberType, &NumberType} },
		first: kinds(KindArray, KindString, KindValue), firstNames: sequenceNames,
		build: func(a []node) node {
			return &sliceNode{nodeBase: nodeBase{t: a[0].base().t}, input: a[0], begin: a[1], end: a[2]}
		},
	},
}

// arityText is the error for an operator taking from lo to hi arguments
// that was given n.
func arityText(lo, hi, n int) string {
	if lo == hi {
		return fmt.Sprintf("Expected %d arguments, but found %d instead.", lo, n)
	}
	return fmt.Sprintf("Expected %d or %d arguments, but found %d instead.", lo, hi, n)
}

// compileSeq compiles a call of the sequence operator args[0]. The
// required arguments are all compiled (each one's errors reported) before
// argument 1's kind is checked; the optional one comes last.
func compileSeq(args []any, c *compiler) node {
	op := seqOps[args[0].(string)]
	n := len(args) - 1
	if n < op.required || n > op.required+op.optional {
		return c.fail(arityText(op.required, op.required+op.optional, n))
	}
	wants := op.wants(c.want)
	compiled := make([]node, op.required+op.optional)
	failed := false
	for i := range op.required {
		compiled[i] = c.compileArg(args[i+1], i+1, wants[i])
		failed = failed || compiled[i] == nil
	}
	if failed {
		return nil
	}
	if t := compiled[0].base().t; op.first != 0 && !op.first.has(t.Kind) {
		return c.fail(fmt.Sprintf("Expected first argument to be of type %s, but found %s instead", op.firstNames, t.String()))
	}
	for i := op.required; i < n; i++ {
		if compiled[i] = c.compileArg(args[i+1], i+1, wants[i]); compiled[i] == nil {
			return nil
		}
	}
	return op.build(compiled)
}
