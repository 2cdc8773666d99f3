package runner

import (
	"errors"
	"fmt"
	"slices"

	"github.com/faasbench/faasbench/internal/affinity"
	"github.com/faasbench/faasbench/platform/local"
	"github.com/faasbench/faasbench/spec"
)

// cpuSplit decides which CPUs the platform and the generator get.
func cpuSplit(ps spec.PlatformSpec, noPin bool) (plat, gen []int, err error) {
	if noPin {
		return nil, nil, nil
	}
	if ps.Name != local.Name {
		// The platform runs on its cluster: the generator may use every
		// CPU here, unless told otherwise.
		if ps.GeneratorCPUs != "" {
			if gen, err = affinity.Parse(ps.GeneratorCPUs); err != nil {
				return nil, nil, inputErr(fmt.Errorf("platform.generator_cpus: %v", err))
			}
		}
		return nil, gen, onlineCPUs("platform.generator_cpus", gen)
	}
	online, err := affinity.Online()
	if err != nil {
		return nil, nil, err
	}
	plat, gen = affinity.Split(online)
	if ps.CPUs != "" {
		if plat, err = affinity.Parse(ps.CPUs); err != nil {
			return nil, nil, inputErr(fmt.Errorf("platform.cpus: %v", err))
		}
	}
	if ps.GeneratorCPUs != "" {
		if gen, err = affinity.Parse(ps.GeneratorCPUs); err != nil {
			return nil, nil, inputErr(fmt.Errorf("platform.generator_cpus: %v", err))
		}
	}
	return plat, gen, errors.Join(onlineCPUs("platform.cpus", plat), onlineCPUs("platform.generator_cpus", gen))
}

// onlineCPUs refuses CPUs this machine does not have online.
func onlineCPUs(field string, cpus []int) error {
	online, err := affinity.Online()
	if err != nil || len(cpus) == 0 {
		return nil
	}
	for _, c := range cpus {
		if !slices.Contains(online, c) {
			return inputErr(fmt.Errorf("%s: CPU %d is not online here (online: %s)", field, c, affinity.Format(online)))
		}
	}
	return nil
}

func overlaps(a, b []int) bool {
	for _, x := range a {
		if slices.Contains(b, x) {
			return true
		}
	}
	return false
}
