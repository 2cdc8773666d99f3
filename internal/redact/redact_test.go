package redact

import (
	"encoding/json"
	"strings"
	"testing"
)

func TestSecretsAreMaskedInEveryForm(t *testing.T) {
	s := FromEnv([]string{"OPENWHISK_AUTH=23bc46b1:123zO3xZCLrMN6v2BKK1d", `FB_DB_PASSWORD=p"a<s>s`, "HOME=/root", "SHORT_TOKEN=abc", "PLAIN=visible-value"}, "PLAIN")
	body := map[string]string{"error": `auth 23bc46b1:123zO3xZCLrMN6v2BKK1d refused; password p"a<s>s wrong; home /root; abc`}
	j, _ := json.Marshal(body)
	out := string(s.Bytes(j))
	for _, leak := range []string{"123zO3xZCLrMN6v2BKK1d", `p\"a\u003cs\u003es`, `p"a<s>s`} {
		if strings.Contains(out, leak) {
			t.Errorf("%q leaked: %s", leak, out)
		}
	}
	if !strings.Contains(out, "/root") || !strings.Contains(out, "abc") {
		t.Errorf("non-secrets masked: %s", out)
	}
	if got := s.String("p&#34;a&lt;s&gt;s and visible-value"); strings.Contains(got, "&lt;s") || strings.Contains(got, "visible-value") {
		t.Errorf("HTML-escaped secret or named value left: %s", got)
	}
	var nilSet *Set
	if nilSet.String("x") != "x" || string(nilSet.Bytes([]byte("y"))) != "y" {
		t.Error("a nil set changed its input")
	}
}

func TestJSONStaysValidWhenASecretIsInANumber(t *testing.T) {
	s := New("123456789", "pw-abcdef")
	doc := []byte(`{"latency_ns": 41234567890, "error": "login pw-abcdef 123456789 refused"}`)
	out := s.JSON(doc)
	if !json.Valid(out) {
		t.Fatalf("invalid JSON: %s", out)
	}
	var v struct {
		Latency json.Number `json:"latency_ns"`
		Error   string      `json:"error"`
	}
	if err := json.Unmarshal(out, &v); err != nil {
		t.Fatal(err)
	}
	if v.Latency != "41234567890" || v.Error != "login [redacted] [redacted] refused" {
		t.Fatalf("got %+v", v)
	}
	if New("3306", "8080").Len() != 0 {
		t.Error("ports are treated as secrets")
	}
}
