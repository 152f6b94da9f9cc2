// Package contract checks HTTP requests and answers against the API contract, api/openapi.yaml, with kin-openapi.
// Tests use it: the server's tests check every call they make, and internal/examples checks the example answers
// the product shows. The product itself does not import it.
package contract

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"net/http"
	"sync"

	"github.com/getkin/kin-openapi/openapi3"
	"github.com/getkin/kin-openapi/openapi3filter"
	"github.com/getkin/kin-openapi/routers"
	"github.com/getkin/kin-openapi/routers/gorillamux"

	"valuator/api"
)

// Contract validates requests and responses against api/openapi.yaml.
type Contract struct {
	router routers.Router
}

var (
	once   sync.Once
	doc    *openapi3.T
	docErr error
)

// Load parses the contract (once per process) and returns a validator for it.
func Load(ctx context.Context) (*Contract, error) {
	once.Do(func() {
		// Receipts are HTML: checked as the text they are.
		openapi3filter.RegisterBodyDecoder("text/html", openapi3filter.RegisteredBodyDecoder("text/plain"))
		doc, docErr = api.Load(ctx)
	})
	if docErr != nil {
		return nil, fmt.Errorf("load contract: %w", docErr)
	}
	// The document's server is absolute (the development server, http://localhost:8080), and the router would then
	// match a request's scheme and host too. Tests send requests to servers on other ports (httptest) and
	// recorders without a host, so the router is built on a copy whose server is "/": requests are matched on
	// their method and path alone.
	paths := *doc
	paths.Servers = openapi3.Servers{{URL: "/"}}
	r, err := gorillamux.NewRouter(&paths)
	if err != nil {
		return nil, fmt.Errorf("contract router: %w", err)
	}
	return &Contract{router: r}, nil
}

// Doc is the parsed contract.
func (c *Contract) Doc() *openapi3.T { return doc }

// Operation finds the operation of a request; an error means the contract does not describe it. The request is
// matched on its method and path alone (see Load; r is changed accordingly).
func (c *Contract) Operation(r *http.Request) (*openapi3filter.RequestValidationInput, error) {
	r.URL.Scheme, r.URL.Host, r.Host = "", "", ""
	route, params, err := c.router.FindRoute(r)
	if err != nil {
		return nil, err
	}
	return &openapi3filter.RequestValidationInput{Request: r, PathParams: params, Route: route,
		Options: &openapi3filter.Options{AuthenticationFunc: openapi3filter.NoopAuthenticationFunc,
			IncludeResponseStatus: true, MultiError: true}}, nil
}

// CheckRequest validates a request found by Operation.
func CheckRequest(ctx context.Context, in *openapi3filter.RequestValidationInput) error {
	return openapi3filter.ValidateRequest(ctx, in)
}

// CheckResponse validates an answer to a request found by Operation.
func CheckResponse(ctx context.Context, in *openapi3filter.RequestValidationInput, status int, header http.Header,
	body []byte) error {
	return openapi3filter.ValidateResponse(ctx, &openapi3filter.ResponseValidationInput{RequestValidationInput: in,
		Status: status, Header: header, Body: io.NopCloser(bytes.NewReader(body)),
		Options: &openapi3filter.Options{IncludeResponseStatus: true, MultiError: true}})
}
