// Package verdictlab is the verdict lab's go test -bench suite
// (bench/verdict_lab.sh --harness): six cases, built as an A/A pair (two
// test binaries of this source with plantPct 0) and as a candidate whose
// Lookup does plantPct percent more of its own work: the dependent chain
// of table loads and multiplies of bench/verdict/cases.c's lookup, walked
// round(2000 * p / 100) steps further after the result is taken (real
// work, not a sleep; the result is the base's). plant.go, the one file
// that differs, says 0; the lab writes the candidate's.
package verdictlab

import "sort"

const lookupSteps = 2000

// plantSteps is how many steps the candidate's Lookup walks further.
const plantSteps = (lookupSteps*plantPct + 50) / 100

// Sink keeps results the compiler would otherwise drop.
var Sink uint64

func xorshift(s *uint64) uint64 {
	x := *s
	x ^= x >> 12
	x ^= x << 25
	x ^= x >> 27
	*s = x
	return x * 0x2545F4914F6CDD1D
}

// Bytes is n pseudo-random bytes from seed.
func Bytes(n int, seed uint64) []byte {
	b := make([]byte, n)
	for i := range b {
		b[i] = byte(xorshift(&seed) >> 56)
	}
	return b
}

// FNV is FNV-1a of b.
func FNV(b []byte) uint64 {
	h := uint64(0xcbf29ce484222325)
	for _, c := range b {
		h = (h ^ uint64(c)) * 0x100000001b3
	}
	return h
}

// Copy copies src into dst.
func Copy(dst, src []byte) { copy(dst, src) }

// SortCopy sorts a copy of keys into work.
func SortCopy(work, keys []int) {
	copy(work, keys)
	sort.Ints(work)
}

// Branch walks b with an unpredictable branch per byte.
func Branch(b []byte) uint64 {
	var c uint64
	for _, x := range b {
		if x&1 != 0 {
			c += uint64(x)
		} else {
			c ^= uint64(x)
		}
	}
	return c
}

// Sum is the sum of v.
func Sum(v []uint64) uint64 {
	var t uint64
	for _, x := range v {
		t += x
	}
	return t
}

// Table is Lookup's 16 KiB table.
func Table() []uint32 {
	t := make([]uint32, 4096)
	s := uint64(5)
	for i := range t {
		t[i] = uint32(xorshift(&s))
	}
	return t
}

func lookupStep(t []uint32, x, i uint64) uint64 {
	return (x^uint64(t[x&4095]))*0x9E3779B97F4A7C15 + i
}

// Lookup walks the chain lookupSteps steps: the planted case.
func Lookup(t []uint32) uint64 {
	x := uint64(1)
	for k := uint64(0); k < lookupSteps; k++ {
		x = lookupStep(t, x, k)
	}
	y := x
	for k := uint64(0); k < plantSteps; k++ {
		y = lookupStep(t, y, k)
	}
	Sink += y
	return x
}
