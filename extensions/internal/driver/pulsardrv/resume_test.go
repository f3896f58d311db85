package pulsardrv

import (
	"errors"
	"testing"
)

// TestGone: a consumer the client library closed is subscribed again unless the broker said
// the topic or subscription is gone (the errors as grabConn words them: "<ServerError>: <msg>").
func TestGone(t *testing.T) {
	for _, tc := range []struct {
		err  error
		want bool
	}{
		{nil, false},
		{errors.New("ConsumerBusy: Exclusive consumer is already connected"), false},
		{errors.New("ServiceNotReady: Topic is temporarily unavailable"), false},
		{errors.New("request timed out"), false},
		{errors.New("TopicNotFound: Topic does not exist"), true},
		{errors.New("TopicTerminatedError: Topic was already terminated"), true},
		{errors.New("SubscriptionNotFound: Subscription does not exist"), true},
	} {
		if got := gone(tc.err); got != tc.want {
			t.Errorf("gone(%v) = %v, want %v", tc.err, got, tc.want)
		}
	}
}
