package scenario

import (
	"fmt"

	"github.com/mqbench/xk6-mqbench/internal/payload"
)

// template reads and parses the payload template at file (content: template), reporting each
// problem in it by the template's own line and column.
func (d *decoder) template(path, file string) *payload.Template {
	t, problems, err := payload.ReadTemplate(file)
	if err != nil {
		d.errorf(path, "%v", err)
		return nil
	}
	for _, p := range problems {
		d.errorf(path, "template %s:%d:%d: %s", file, p.Line, p.Col, p.Msg)
	}
	if len(problems) > 0 {
		return nil
	}
	return t
}

// checkTemplate refuses cells whose size cannot hold the template's longest body (after the
// stamp, when it travels in the body), and the shapes that size each message themselves.
func (d *decoder) checkTemplate(s *Scenario) {
	t := s.Workload.Payload.Template
	if t == nil {
		return
	}
	room := s.StampRoom()
	need, why := t.MaxLen()+room, fmt.Sprintf("the template's longest body, %d bytes", t.MaxLen())
	if room > 0 {
		why += fmt.Sprintf(", after the %d-byte stamp (stamp: header leaves the whole body to the template)", room)
	}
	for i, c := range s.Cells {
		p := fmt.Sprintf("matrix[%d].size", i)
		switch {
		case c.Producers == 0 || d.reported(p):
		case len(c.Mix) > 0:
			d.errorf(p, "a size mix cannot render a template (content: template renders every body at the cell's one size)")
		case c.Replay != nil:
			d.errorf(fmt.Sprintf("matrix[%d].replay", i), "a replay sizes each message from its recording; content: template renders every body at the cell's one size")
		case c.Size < need:
			d.errorf(p, "%s is too small: at least %dB holds %s", c.SizeLabel, need, why)
		}
	}
}
