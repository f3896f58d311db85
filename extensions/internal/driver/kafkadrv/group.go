package kafkadrv

import (
	"context"
	"errors"
	"fmt"

	"github.com/twmb/franz-go/pkg/kadm"
	"github.com/twmb/franz-go/pkg/kerr"
)

// errGroupHasMembers stops retry: the group's coordinator refused an admin commit because
// consumers have joined the group.
var errGroupHasMembers = errors.New("the group has members")

// commitStart commits a fresh group's start offsets and reports whether this driver created
// the group. The runners of a distributed run set up one group at once: when another runner
// committed and its consumers joined between groupExists and this commit, the coordinator
// refuses a commit from outside the group (UNKNOWN_MEMBER_ID, or REBALANCE_IN_PROGRESS while
// they join). The group then exists with the other runner's start position, which is the same
// one (listed before any runner produced), and is not this driver's to delete.
func (d *kafkaDriver) commitStart(ctx context.Context, group string, offsets kadm.Offsets) (bool, error) {
	err := retry(ctx, func() error {
		err := d.adm.CommitAllOffsets(ctx, group, offsets)
		if errors.Is(err, kerr.UnknownMemberID) || errors.Is(err, kerr.IllegalGeneration) ||
			errors.Is(err, kerr.RebalanceInProgress) {
			return fmt.Errorf("%w (%w)", errGroupHasMembers, err)
		}
		return err
	})
	if errors.Is(err, errGroupHasMembers) {
		if exists, xerr := d.groupExists(ctx, group); xerr == nil && exists {
			return false, nil
		}
	}
	if err != nil {
		return false, fmt.Errorf("kafka: commit start offsets for group %s: %s", group, d.scrub(err.Error()))
	}
	return true, nil
}
