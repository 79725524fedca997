package server

import (
	"fmt"

	"github.com/tesseramaps/tessera/internal/style"
)

// maxStyleProblems bounds the problems kept per invalid style.
const maxStyleProblems = 50

// checkStyle parses a map's style and validates it against the style
// specification; any validation error keeps the map from being served.
func checkStyle(raw []byte) (string, []string) {
	s, err := style.Parse(raw)
	if err != nil {
		return "", []string{err.Error()}
	}
	var problems []string
	for _, e := range style.Validate(s, style.DefaultSpec()) {
		if len(problems) == maxStyleProblems {
			problems = append(problems, "... more problems not shown")
			break
		}
		problems = append(problems, e.Error())
	}
	return s.Name, problems
}

// rewriteStyle serves a stored style with every resource URL made an
// absolute URL of this server and the request's key carried into them.
func rewriteStyle(raw []byte, mapID, base, key string, hasTileset func(string) bool) ([]byte, []string, error) {
	s, err := style.Parse(raw)
	if err != nil {
		return nil, nil, fmt.Errorf("parse style: %w", err)
	}
	out, problems := s.Rewrite(style.Resolver{
		BaseURL: base,
		MapID:   mapID,
		Key:     key,
		Tileset: func(name string) (string, bool) { return name, hasTileset(name) },
	})
	msgs := make([]string, 0, len(problems))
	for _, p := range problems {
		msgs = append(msgs, p.String())
	}
	return out, msgs, nil
}
