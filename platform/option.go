package platform

import (
	"fmt"
	"net/url"
	"strconv"
	"strings"
)

// OptionString is a platform option's value as the text the adapters parse: a string as it is, and a YAML
// scalar that is not one (true, 3, 2.5: a spec's `patched_controller: true` or `ready_timeout: 120`) as YAML
// writes it. A list, a map or anything else is refused, naming the option.
func OptionString(key string, v any) (string, error) {
	switch x := v.(type) {
	case string:
		return x, nil
	case bool:
		return strconv.FormatBool(x), nil
	case int:
		return strconv.Itoa(x), nil
	case int64:
		return strconv.FormatInt(x, 10), nil
	case uint64:
		return strconv.FormatUint(x, 10), nil
	case float64:
		return strconv.FormatFloat(x, 'g', -1, 64), nil
	}
	return "", fmt.Errorf("platform.options.%s: %v is not a string, number or true/false", key, v)
}

// OptionURL checks a platform option that is the base URL of a service (a gateway, an ingress, a
// dashboard): empty is left empty, anything else must be an absolute http(s) URL with a host, and comes
// back without its trailing slashes, so that a path can be appended. The error names the option.
func OptionURL(key, v string) (string, error) {
	if v == "" {
		return "", nil
	}
	if u, err := url.Parse(v); err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
		return "", fmt.Errorf("platform.options.%s: %q is not an http(s) URL", key, v)
	}
	return strings.TrimRight(v, "/"), nil
}
