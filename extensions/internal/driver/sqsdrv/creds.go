package sqsdrv

import (
	"context"
	"errors"
	"os"

	"github.com/aws/aws-sdk-go-v2/aws"
)

// Credentials come from the standard environment variables only: no shared config or
// credentials file, no SSO, and above all no instance-metadata (IMDS) lookup, which hangs or
// retries for seconds on a machine outside AWS. That is also why the SDK's config module is
// not used: a missing credential is a clear error at once.
const (
	envKeyID   = "AWS_ACCESS_KEY_ID"
	envSecret  = "AWS_SECRET_ACCESS_KEY"
	envSession = "AWS_SESSION_TOKEN"
)

// dummyKey signs requests to a loopback endpoint when the environment has no credentials:
// ElasticMQ (and LocalStack) check none, and a benchmark on this machine should not need any.
const dummyKey = "mqbench-local"

// envCredentials returns the provider for ep and how it was chosen (for messages). Against
// AWS, or any endpoint that is not loopback, credentials are required.
func envCredentials(ep endpoint) (aws.CredentialsProvider, string, error) {
	id, secret := os.Getenv(envKeyID), os.Getenv(envSecret)
	switch {
	case id != "" && secret != "":
		c := aws.Credentials{AccessKeyID: id, SecretAccessKey: secret, SessionToken: os.Getenv(envSession), Source: "environment"}
		return staticProvider(c), "the environment's " + envKeyID, nil
	case id != "" || secret != "":
		return nil, "", errors.New("sqs: " + envKeyID + " and " + envSecret + " must be set together (one of them is empty)")
	case ep.loopback():
		c := aws.Credentials{AccessKeyID: dummyKey, SecretAccessKey: dummyKey, Source: "mqbench loopback dummy"}
		return staticProvider(c), "dummy credentials (loopback endpoint, none in the environment)", nil
	}
	where := "AWS's SQS"
	if ep.host != "" {
		where = ep.host
	}
	return nil, "", errors.New("sqs: no credentials for " + where + ": set " + envKeyID + " and " + envSecret +
		" (and " + envSession + " for temporary ones); mqbench reads credentials from the environment only, never from the scenario, a config file or instance metadata")
}

func staticProvider(c aws.Credentials) aws.CredentialsProvider {
	return aws.CredentialsProviderFunc(func(context.Context) (aws.Credentials, error) { return c, nil })
}
