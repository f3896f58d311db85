package runner

// Bodies are the generator's largest allocation (1 KB a message at 250,000 msg/s is 250 MB/s for
// the collector). A publisher that does not copy a value keeps it only until the message's
// Ack resolves (driver.ValueCopier's contract), so a body whose acknowledgement came serves
// a later message of the same producer.

// maxSpare bounds the bodies one producer keeps for reuse (a closed loop's window, or a burst
// of acknowledgements, beyond it go to the collector).
const maxSpare = 4096

// takeSpare returns a body to fill (nil: none kept, the payload source allocates one).
func (p *producer) takeSpare() []byte {
	p.spareMu.Lock()
	defer p.spareMu.Unlock()
	n := len(p.spare)
	if n == 0 {
		return nil
	}
	b := p.spare[n-1]
	p.spare[n-1] = nil
	p.spare = p.spare[:n-1]
	return b
}

// giveSpare keeps the body of an acknowledged message (nil: nothing to keep).
func (p *producer) giveSpare(b []byte) {
	if b == nil {
		return
	}
	p.spareMu.Lock()
	if len(p.spare) < maxSpare {
		p.spare = append(p.spare, b)
	}
	p.spareMu.Unlock()
}
