package coldrate

import (
	"context"
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/faasbench/faasbench/load"
	"github.com/faasbench/faasbench/platform"
)

// starter is a fake that says how it makes a function cold: its Deploy
// starts an instance whatever the replicas (as OpenFaaS's and Fission's
// do), and MakeCold stops it, with how.
type starter struct {
	*fake
	how   platform.Cold
	asked []string
}

func (s *starter) Deploy(ctx context.Context, fn platform.Function) error {
	if err := s.fake.Deploy(ctx, fn); err != nil {
		return err
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	s.started[fn.Name] = true
	return nil
}

func (s *starter) MakeCold(_ context.Context, name string) (platform.Cold, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.asked = append(s.asked, name)
	delete(s.started, name)
	how := s.how
	if how.Via != nil {
		how.Via = &platform.Route{URL: how.Via.URL, Header: map[string]string{"X-Via": name}}
	}
	return how, nil
}

func (s *starter) StartedSince(context.Context, string, time.Time) ([]platform.StartedInstance, error) {
	return nil, nil
}

// A platform that deploys a function with an instance has each copy made
// cold before the step's calls; one that raises a function from zero only
// through another component has the cold calls sent there.
func TestStepMakesEachCopyCold(t *testing.T) {
	for _, via := range []bool{false, true} {
		f := newFake(t, 4, 10*time.Millisecond)
		f.via = via
		s := &starter{fake: f, how: platform.Cold{How: "scaled to zero", OnPath: true}}
		if via {
			s.how.Via = &platform.Route{URL: f.srv.URL}
		}
		cl := load.NewClient(load.Options{Timeout: 10 * time.Second})
		c, err := Run(context.Background(), s, cl, Options{Function: platform.Function{Name: "m"}, Rates: []float64{5}, Step: time.Second, Bound: time.Second})
		cl.Close()
		if err != nil {
			t.Fatalf("via %v: %v", via, err)
		}
		if st := c.Steps[0]; !st.Sustained || st.Cold != 5 || len(s.asked) != 5 {
			t.Errorf("via %v: %+v, made cold %v: want the 5 copies made cold and their calls cold starts", via, st, s.asked)
		}
		if len(f.deployed) != 0 {
			t.Errorf("via %v: left deployed %v", via, f.deployed)
		}
	}
}

// A cold start that is not on the call's path, or is a deploy just before
// the call, is refused, naming what the platform does; the copy is removed.
func TestStepRefusesAColdStartOffThePath(t *testing.T) {
	for _, how := range []platform.Cold{
		{How: "its pods deleted and new ones ready"},
		{How: "removed and deployed anew", OnPath: true, Deployed: true},
	} {
		f := newFake(t, 4, time.Millisecond)
		s := &starter{fake: f, how: how}
		cl := load.NewClient(load.Options{})
		_, err := Run(context.Background(), s, cl, Options{Function: platform.Function{Name: "r"}, Rates: []float64{5}, Step: time.Second})
		cl.Close()
		if !errors.Is(err, platform.ErrRefused) || !strings.Contains(err.Error(), how.How) {
			t.Errorf("%+v: %v: want a refusal naming how", how, err)
		}
		if len(f.deployed) != 0 || len(f.removed) != 1 {
			t.Errorf("%+v: deployed %v, removed %v: want the one copy removed", how, f.deployed, f.removed)
		}
	}
}
