package runner

import (
	"context"
	"fmt"
	"reflect"

	"github.com/faasbench/faasbench/experiment"
	"github.com/faasbench/faasbench/plan"
	"github.com/faasbench/faasbench/platform"
	"github.com/faasbench/faasbench/spec"
)

func (c *cells) deploy(ctx context.Context, fn platform.Function) error {
	if err := c.p.Deploy(ctx, fn); err != nil {
		return fmt.Errorf("deploy %s: %w", fn.Name, err)
	}
	if c.deployed == nil {
		c.deployed = map[string]platform.Function{}
	}
	c.deployed[fn.Name] = fn
	delete(c.used, fn.Name)
	return nil
}

// functionSpec is the spec's function called name (the plan only names
// functions of the spec).
func functionSpec(sp spec.Spec, name string) spec.FunctionSpec {
	for _, f := range sp.Functions {
		if f.Name == name {
			return f
		}
	}
	return spec.FunctionSpec{}
}

// ensure makes the platform run the cell's function as its grid point
// says: a replica count alone is a scale; anything else a redeploy. A kind
// that wants a fresh start gets a redeploy before every cell but the first
// on a deployment.
func (c *cells) ensure(ctx context.Context, pc plan.Cell) error {
	want, err := experiment.FunctionOf(functionSpec(c.sp, pc.Function), pc.Params, c.env)
	if err != nil {
		return err
	}
	have, ok := c.deployed[pc.Function]
	if _, fresh := c.kind.(experiment.FreshStart); fresh && ok && c.used[pc.Function] {
		if err := c.p.Remove(ctx, want.Name); err != nil {
			return fmt.Errorf("remove %s for a fresh start: %w", want.Name, err)
		}
		delete(c.deployed, want.Name)
		fmt.Fprintf(c.o.Log, "deploying %s%s afresh\n", want.Name, pc.Params)
		return c.deploy(ctx, want)
	}
	if ok && reflect.DeepEqual(have, want) {
		return nil
	}
	if ok {
		scaled := have
		scaled.Replicas = want.Replicas
		if reflect.DeepEqual(scaled, want) {
			if err := c.p.Scale(ctx, want.Name, want.Replicas); err != nil {
				return fmt.Errorf("scale %s to %d: %w", want.Name, want.Replicas, err)
			}
			c.deployed[want.Name] = want
			return nil
		}
		if err := c.p.Remove(ctx, want.Name); err != nil {
			return fmt.Errorf("remove %s to redeploy it: %w", want.Name, err)
		}
		delete(c.deployed, want.Name)
	}
	fmt.Fprintf(c.o.Log, "deploying %s%s\n", want.Name, pc.Params)
	return c.deploy(ctx, want)
}
