package verdictlab

import (
	"fmt"
	"testing"
)

func BenchmarkFNV(b *testing.B) {
	v := Bytes(48, 1)
	b.Run("n=48", func(b *testing.B) {
		for i := 0; i < b.N; i++ {
			Sink += FNV(v)
		}
	})
}

func BenchmarkCopy(b *testing.B) {
	src, dst := Bytes(16384, 2), Bytes(16384, 3)
	b.Run("n=16384", func(b *testing.B) {
		for i := 0; i < b.N; i++ {
			Copy(dst, src)
		}
	})
}

func BenchmarkSort(b *testing.B) {
	keys := make([]int, 64)
	s := uint64(4)
	for i := range keys {
		keys[i] = int(xorshift(&s) >> 33)
	}
	work := make([]int, len(keys))
	b.Run("n=64", func(b *testing.B) {
		for i := 0; i < b.N; i++ {
			SortCopy(work, keys)
		}
	})
}

func BenchmarkBranch(b *testing.B) {
	v := Bytes(4096, 6)
	b.Run("n=4096", func(b *testing.B) {
		for i := 0; i < b.N; i++ {
			Sink += Branch(v)
		}
	})
}

func BenchmarkSum(b *testing.B) {
	v := make([]uint64, 65536)
	s := uint64(7)
	for i := range v {
		v[i] = xorshift(&s)
	}
	b.Run("n=65536", func(b *testing.B) {
		for i := 0; i < b.N; i++ {
			Sink += Sum(v)
		}
	})
}

func BenchmarkLookup(b *testing.B) {
	t := Table()
	b.Run(fmt.Sprintf("n=%d", lookupSteps), func(b *testing.B) {
		for i := 0; i < b.N; i++ {
			Sink += Lookup(t)
		}
	})
}
