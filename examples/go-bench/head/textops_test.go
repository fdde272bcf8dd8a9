package textops

import (
	"fmt"
	"testing"
)

var sink int

func BenchmarkSumSquares(b *testing.B) {
	for _, n := range []int{4096} {
		b.Run(fmt.Sprintf("n=%d", n), func(b *testing.B) {
			for i := 0; i < b.N; i++ {
				sink += SumSquares(n)
			}
		})
	}
}

func BenchmarkJoinWords(b *testing.B) {
	for i := 0; i < b.N; i++ {
		sink += len(JoinWords(100))
	}
}

func BenchmarkSortKeys(b *testing.B) {
	b.Run("n=500", func(b *testing.B) {
		for i := 0; i < b.N; i++ {
			sink += SortKeys(500)[0]
		}
	})
}
