package main

// The go line of go.mod is 1.19, the Go of Debian 12's golang-go package (make install's fallback), which
// has no min and max builtins (Go 1.21); these two have their meaning for the ordered types used here.

type ordered interface {
	~int | ~int32 | ~int64 | ~float64
}

func min[T ordered](a, b T) T {
	if b < a {
		return b
	}
	return a
}

func max[T ordered](a, b T) T {
	if b > a {
		return b
	}
	return a
}
