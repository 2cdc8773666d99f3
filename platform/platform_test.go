package platform

import (
	"context"
	"errors"
	"testing"
)

type stub struct{ Platform }

func TestRegistry(t *testing.T) {
	r := NewRegistry()
	f := func(context.Context, Config) (Platform, error) { return stub{}, nil }
	if err := r.Register("local", f); err != nil {
		t.Fatal(err)
	}
	if err := r.Register("local", f); err == nil {
		t.Fatal("registering a name twice must fail")
	}
	if err := r.Register("", f); err == nil {
		t.Fatal("an empty name must fail")
	}
	if !r.Has("local") || r.Has("knative") {
		t.Fatal("Has is wrong")
	}
	if _, err := r.New(context.Background(), "knative", Config{}); !errors.Is(err, ErrUnknown) {
		t.Fatalf("unknown platform: %v", err)
	}
	p, err := r.New(context.Background(), "local", Config{})
	if err != nil || p == nil {
		t.Fatalf("New: %v", err)
	}
	bad := func(context.Context, Config) (Platform, error) { return nil, errors.New("no cluster") }
	if err := r.Register("broken", bad); err != nil {
		t.Fatal(err)
	}
	if _, err := r.New(context.Background(), "broken", Config{}); err == nil || err.Error() != "platform broken: no cluster" {
		t.Fatalf("factory error not wrapped: %v", err)
	}
	if got := r.Names(); len(got) != 2 || got[0] != "broken" {
		t.Fatalf("names %v", got)
	}
}
