package server

import (
	"archive/zip"
	"bytes"
	"net/http"
	"strings"
	"testing"

	"valuator/internal/testdb"
)

// zipFile is a zip archive holding files (name to content).
func zipFile(t *testing.T, files map[string]string) []byte {
	t.Helper()
	var buf bytes.Buffer
	zw := zip.NewWriter(&buf)
	for name, content := range files {
		w, err := zw.Create(name)
		if err != nil {
			t.Fatal(err)
		}
		if _, err := w.Write([]byte(content)); err != nil {
			t.Fatal(err)
		}
	}
	if err := zw.Close(); err != nil {
		t.Fatal(err)
	}
	return buf.Bytes()
}

// TestUploadOfWrongFileTypeIs415 sends every endpoint that takes a batch file files that are not spreadsheets, by
// their name or by their content: each is answered 415 (DESIGN.md section 4, "415 wrong file type") in the one
// error shape, naming the field "file", with the Batch Upload screen's title, and creates nothing. Files of the
// right kind that cannot be read stay 400.
func TestUploadOfWrongFileTypeIs415(t *testing.T) {
	testdb.Each(t, func(t *testing.T, dbURL string) {
		a := newTestApp(t, dbURL, withSeattle, func(o *appOptions) { o.holdJobs = true })
		token, _ := a.register("jane@example.com", "correct-horse", "Jane Doe")
		key := a.createKey(token, "Production", 60)

		program := append([]byte("MZ\x90\x00\x03\x00\x00\x00\x04\x00\x00\x00\xff\xff\x00\x00"),
			[]byte("This program cannot be run in DOS mode.\r\n")...)
		wrong := []struct {
			name, file string
			content    []byte
			says       string // part of the message
		}{
			{"a PDF", "listing.pdf", []byte("%PDF-1.4\n%\xe2\xe3\xcf\xd3\n"), "Please upload a CSV or Excel file"},
			{"a program", "homes.exe", program, "Please upload a CSV or Excel file"},
			{"a PDF named .csv", "homes.csv", []byte("%PDF-1.4\n1 0 obj << /Type /Catalog >> endobj\n"), "PDF document"},
			{"a program named .csv", "homes.csv", program, "does not look like a CSV text file"},
			{"NUL bytes in a .csv", "homes.csv", []byte("Address,City\n1 Main St\x00,Seattle\n"), "does not look like a CSV text file"},
			{"a zip renamed .xlsx", "homes.xlsx", zipFile(t, map[string]string{"photos/front.txt": "a house"}), "zip archive, not an Excel workbook"},
			{"a Word document renamed .xlsx", "homes.xlsx", zipFile(t, map[string]string{"word/document.xml": "<w:document/>"}), "zip archive, not an Excel workbook"},
		}
		endpoints := []struct {
			name string
			rq   func(file string, content []byte) req
		}{
			{"preview", func(f string, c []byte) req { return multipartReq(t, "POST", "/api/jobs/preview", token, f, c, nil) }},
			{"dashboard job", func(f string, c []byte) req { return multipartReq(t, "POST", "/api/jobs", token, f, c, nil) }},
			{"public upload", func(f string, c []byte) req {
				return withKey(multipartReq(t, "POST", "/api/batch/upload", "", f, c, nil), key.Value)
			}},
		}
		for _, ep := range endpoints {
			for _, tt := range wrong {
				t.Run(ep.name+"/"+tt.name, func(t *testing.T) {
					rq := ep.rq(tt.file, tt.content)
					rq.badRequest = true
					r := a.do(rq)
					e := expectField(t, r, http.StatusUnsupportedMediaType, "file")
					if e.Code != "invalid_file_type" || !strings.Contains(e.Error, tt.says) || e.Fields["file"] != e.Error {
						t.Errorf("error = %s, want code invalid_file_type and a message with %q", r.body, tt.says)
					}
					var titled struct{ Title string }
					r.json(t, &titled)
					if titled.Title != "Invalid File Type" {
						t.Errorf("title = %q, want %q", titled.Title, "Invalid File Type")
					}
				})
			}
			// A spreadsheet that cannot be read is the person's to fix, not a wrong type: still 400.
			for _, tt := range []struct {
				name, file string
				content    []byte
			}{
				{"a damaged workbook", "homes.xlsx", zipFile(t, map[string]string{"xl/workbook.xml": "<workbook"})},
				{"a CSV with an unclosed quote", "homes.csv", []byte("Address,City\n\"1 Main St,Seattle\n")},
			} {
				t.Run(ep.name+"/"+tt.name, func(t *testing.T) {
					rq := ep.rq(tt.file, tt.content)
					rq.badRequest = true
					expectField(t, a.do(rq), http.StatusBadRequest, "file")
				})
			}
		}
		if n := a.jobCount(token); n != 0 {
			t.Errorf("Jane has %d jobs after refused uploads, want 0", n)
		}
	})
}
