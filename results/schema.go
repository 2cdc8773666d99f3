package results

import (
	"bytes"
	_ "embed"
	"fmt"

	"github.com/santhosh-tekuri/jsonschema/v6"
)

// SummarySchema is the JSON Schema of summary.json (results/schema/).
//
//go:embed schema/summary.schema.json
var SummarySchema []byte

// ValidateSummary checks a summary.json document against SummarySchema.
func ValidateSummary(doc []byte) error {
	schemaDoc, err := jsonschema.UnmarshalJSON(bytes.NewReader(SummarySchema))
	if err != nil {
		return fmt.Errorf("results: schema: %w", err)
	}
	c := jsonschema.NewCompiler()
	c.AssertFormat()
	if err := c.AddResource("summary.schema.json", schemaDoc); err != nil {
		return fmt.Errorf("results: schema: %w", err)
	}
	sch, err := c.Compile("summary.schema.json")
	if err != nil {
		return fmt.Errorf("results: schema: %w", err)
	}
	inst, err := jsonschema.UnmarshalJSON(bytes.NewReader(doc))
	if err != nil {
		return fmt.Errorf("results: summary is not JSON: %w", err)
	}
	if err := sch.Validate(inst); err != nil {
		return fmt.Errorf("results: summary does not match schema %s: %w", SchemaVersion, err)
	}
	return nil
}
