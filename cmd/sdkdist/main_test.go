package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestVersionsAgree: the API's version is the SDKs' version (the Go SDK's Version and the npm package's), so a change
// of info.version that leaves an SDK behind fails here, before a release ships two numbers.
func TestVersionsAgree(t *testing.T) {
	v, err := Versions(filepath.Join("..", ".."))
	if err != nil {
		t.Fatal(err)
	}
	if v == "" {
		t.Fatal("no version")
	}
	// The SDKs' changelogs have an entry for it.
	for _, f := range []string{"sdk/go/CHANGELOG.md", "sdk/typescript/CHANGELOG.md"} {
		b, err := os.ReadFile(filepath.Join("..", "..", f))
		if err != nil {
			t.Fatal(err)
		}
		if !strings.Contains(string(b), "## "+v) && !strings.Contains(string(b), "## v"+v) {
			t.Errorf("%s has no entry for %s", f, v)
		}
	}
}

func TestAPIVersion(t *testing.T) {
	for _, tc := range []struct {
		spec, want string
		ok         bool
	}{
		{"openapi: 3.1.0\ninfo:\n  title: X\n  version: 1.2.3\npaths: {}\n", "1.2.3", true},
		{"info:\n  version: \"2.0.0\"\n", "2.0.0", true},
		{"info:\n  title: X\nservers:\n  version: 1.0.0\n", "", false},
		{"info:\n  version: 1.0\n", "", false},
	} {
		got, err := APIVersion([]byte(tc.spec))
		if (err == nil) != tc.ok || got != tc.want {
			t.Errorf("APIVersion(%q) = %q, %v; want %q ok=%v", tc.spec, got, err, tc.want, tc.ok)
		}
	}
}
