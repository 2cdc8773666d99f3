package results

import (
	"sort"
	"strconv"
	"strings"
)

// SortedKeys returns the keys of counts by class, in order.
func SortedKeys(m map[string]int64) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	return keys
}

// FormatCounts writes counts as "class=n" in key order, joined by sep ("" when empty).
func FormatCounts(m map[string]int64, sep string) string {
	parts := make([]string, 0, len(m))
	for _, k := range SortedKeys(m) {
		parts = append(parts, k+"="+strconv.FormatInt(m[k], 10))
	}
	return strings.Join(parts, sep)
}
