package nuclio

import "time"

// SetDLXResultLife shortens the wait for the DLX's one-minute result cache (tests).
func (p *Platform) SetDLXResultLife(d time.Duration) { p.testDLXLife = d }
