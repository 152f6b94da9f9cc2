package demo

import "testing"

// BenchmarkGenerate times a default market: it is generated on the first start of an empty database.
func BenchmarkGenerate(b *testing.B) {
	for b.Loop() {
		Generate(1, testNow)
	}
}
