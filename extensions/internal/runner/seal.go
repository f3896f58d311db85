package runner

// Seal ends every change to the cells' ledgers (ledger.Seal), once Close has closed the
// consumers and stopped awaiting acknowledgements. Until then a confirmation or a delivery
// after a cell's drain still moves a message (unconfirmed to lost, lost to held): the run
// judges its thresholds after Seal, and Report writes the same ledgers, so the verdict and
// summary.json cannot disagree.
func (r *Runner) Seal() {
	for _, c := range r.cells {
		c.ledger.Seal()
	}
}

// Sealed reports whether Seal was called: the ledgers' verdicts are final.
func (r *Runner) Sealed() bool {
	for _, c := range r.cells {
		if !c.ledger.Sealed() {
			return false
		}
	}
	return len(r.cells) > 0
}
