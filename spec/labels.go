package spec

import (
	"regexp"
	"sort"
)

// Limits of labels: a manifest records them whole.
const (
	MaxLabels          = 32
	MaxLabelValueBytes = 256
)

var labelKeyRE = regexp.MustCompile(`^[a-z][a-z0-9_.-]{0,62}$`)

// validateLabels checks labels' keys (lower-case, at most 63 characters) and
// values (printable, at most MaxLabelValueBytes); keys are checked in order so
// that the errors come out the same every time.
func validateLabels(labels map[string]string, add func(path, format string, args ...any)) {
	if len(labels) > MaxLabels {
		add("labels", "%d labels: at most %d", len(labels), MaxLabels)
	}
	keys := make([]string, 0, len(labels))
	for k := range labels {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	for _, k := range keys {
		v := labels[k]
		if !labelKeyRE.MatchString(k) {
			add("labels."+k, "%q: a label's key is lower-case letters, digits, '_', '.' and '-', starting with a letter, at most 63", k)
			continue
		}
		if len(v) > MaxLabelValueBytes {
			add("labels."+k, "%d bytes: a label's value is at most %d", len(v), MaxLabelValueBytes)
		}
		for _, r := range v {
			if r < 0x20 || r == 0x7f {
				add("labels."+k, "a label's value is one line of printable text")
				break
			}
		}
	}
}
