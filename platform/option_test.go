package platform

import (
	"strings"
	"testing"
)

func TestOptionStringTakesScalars(t *testing.T) {
	for v, want := range map[any]string{"x": "x", true: "true", false: "false", 3: "3", int64(-4): "-4", uint64(5): "5", 2.5: "2.5", 120.0: "120"} {
		if got, err := OptionString("k", v); err != nil || got != want {
			t.Errorf("%#v: %q %v, want %q", v, got, err, want)
		}
	}
	for _, v := range []any{[]any{"a"}, map[string]any{"a": 1}, nil} {
		if _, err := OptionString("ready_timeout", v); err == nil || !strings.Contains(err.Error(), "platform.options.ready_timeout:") {
			t.Errorf("%#v: %v, want a refusal naming the option", v, err)
		}
	}
}
