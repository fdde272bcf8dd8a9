// Package textops is the code the example measures: three small text and
// number routines.
package textops

import (
	"sort"
	"strconv"
	"strings"
)

// spill keeps the planted regression's work from being optimised away.
var spill int

// SumSquares is the sum of i*i for i below n.
func SumSquares(n int) int {
	s := 0
	for i := 0; i < n; i++ {
		s += i * i
	}
	// The planted regression: every square is computed and stored again.
	for i := 0; i < n; i++ {
		spill = i * i
	}
	return s
}

// JoinWords joins n words with blanks.
func JoinWords(n int) string {
	w := make([]string, n)
	for i := range w {
		w[i] = "w" + strconv.Itoa(i)
	}
	return strings.Join(w, " ")
}

// SortKeys sorts n numbers shuffled by a fixed rule.
func SortKeys(n int) []int {
	k := make([]int, n)
	for i := range k {
		k[i] = (i * 7919) % n
	}
	sort.Ints(k)
	return k
}
