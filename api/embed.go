// Package api holds the API contract, api/openapi.yaml: the one source for the server's contract tests, the web
// app's generated types and the /docs viewer.
package api

import (
	"context"
	_ "embed"
	"encoding/json"
	"fmt"
	"strings"
	"sync"

	"github.com/getkin/kin-openapi/openapi3"
)

// Spec is api/openapi.yaml.
//
//go:embed openapi.yaml
var Spec []byte

// DevBaseURL is the address api/openapi.yaml gives its server and its links (contact, terms): the local development
// server of `make run`. The document needs absolute addresses (strict validators and code generators refuse
// relative ones), and this product has no one public address: each installation has its own VALUATOR_BASE_URL.
const DevBaseURL = "http://localhost:8080"

// JSON returns the contract as JSON, as GET /api/openapi.json serves it, after checking that it is a valid OpenAPI
// document, so a broken contract stops the server at start instead of confusing the docs viewer. The server and
// the links the document points at the development server (DevBaseURL) point at baseURL instead, the serving
// installation's own VALUATOR_BASE_URL, so that the /docs page's "Try it out" and code generators reading the
// document call the server that answered it.
//
// The document is parsed and validated once a process, and its JSON kept per baseURL: a test suite makes hundreds of
// servers, and each parse took a second or more on two busy cores.
func JSON(ctx context.Context, baseURL string) ([]byte, error) {
	baseURL = strings.TrimRight(baseURL, "/")
	if b, ok := jsonByBase.Load(baseURL); ok {
		return b.([]byte), nil
	}
	doc, err := Load(ctx)
	if err != nil {
		return nil, err
	}
	if baseURL != "" {
		rebase := func(u string) string {
			if rest, ok := strings.CutPrefix(u, DevBaseURL); ok {
				return baseURL + rest
			}
			return u
		}
		doc.Servers = openapi3.Servers{{URL: baseURL, Description: "This server",
			Extensions: map[string]any{"x-internal": false}}}
		if doc.Info != nil {
			doc.Info.TermsOfService = rebase(doc.Info.TermsOfService)
			if doc.Info.Contact != nil {
				doc.Info.Contact.URL = rebase(doc.Info.Contact.URL)
			}
			if doc.Info.License != nil {
				doc.Info.License.URL = rebase(doc.Info.License.URL)
			}
		}
	}
	b, err := json.Marshal(doc)
	if err != nil {
		return nil, err
	}
	jsonByBase.Store(baseURL, b)
	return b, nil
}

// jsonByBase holds JSON's answers by base URL ([]byte, never changed once stored).
var jsonByBase sync.Map

// loaded is the contract parsed and validated once: Load hands out copies of it.
var loaded struct {
	once sync.Once
	doc  []byte // the validated document as JSON, to copy from
	err  error
}

// Load parses and validates the contract, and returns a document of the caller's own (to change as it likes). The
// parse and validation happen once a process; each call after the first copies the result.
func Load(ctx context.Context) (*openapi3.T, error) {
	loaded.once.Do(func() {
		doc, err := parse(ctx)
		if err == nil {
			loaded.doc, err = json.Marshal(doc)
		}
		loaded.err = err
	})
	if loaded.err != nil {
		return nil, loaded.err
	}
	doc, err := openapi3.NewLoader().LoadFromData(loaded.doc)
	if err != nil {
		return nil, fmt.Errorf("api/openapi.yaml: %w", err)
	}
	return doc, nil
}

// parse parses and validates api/openapi.yaml.
func parse(ctx context.Context) (*openapi3.T, error) {
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
