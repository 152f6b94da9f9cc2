// Package api holds the API contract, api/openapi.yaml: the one source for the server's contract tests, the web
// app's generated types and the /docs viewer.
package api

import (
	"context"
	_ "embed"
	"encoding/json"
	"fmt"
	"strings"

	"github.com/getkin/kin-openapi/openapi3"
)

// Spec is api/openapi.yaml.
//
//go:embed openapi.yaml
var Spec []byte

// JSON returns the contract as JSON (what GET /api/openapi.json serves), after checking that it is a valid
// OpenAPI document, so a broken contract stops the server at start instead of confusing the docs viewer.
func JSON(ctx context.Context) ([]byte, error) {
	doc, err := Load(ctx)
	if err != nil {
		return nil, err
	}
	return json.Marshal(doc)
}

// Load parses and validates the contract.
func Load(ctx context.Context) (*openapi3.T, error) {
	loader := openapi3.NewLoader()
	doc, err := loader.LoadFromData(Spec)
	if err != nil {
		return nil, fmt.Errorf("api/openapi.yaml: %w", err)
	}
	if err := doc.Validate(ctx); err != nil {
		hint := ""
		if strings.Contains(err.Error(), "example demoHome") {
			// The example valuation is generated; after a change to the valuation's shape it no longer fits.
			hint = " (the generated example valuation is out of date: run `make examples`)"
		}
		return nil, fmt.Errorf("api/openapi.yaml is not a valid OpenAPI document%s: %w", hint, err)
	}
	return doc, nil
}
