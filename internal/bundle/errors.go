package bundle

import "errors"

// Kinds of failure a caller must tell apart; test with errors.Is. Every error this package
// returns also says, in words, which project or file and what to do.
var (
	// ErrMalformed: a manifest or sealed archive is not one tfgate writes (unknown schema,
	// missing or invalid fields, unexpected entries).
	ErrMalformed = errors.New("malformed bundle")
	// ErrTampered: the plan file or the manifest changed after planning or sealing.
	ErrTampered = errors.New("bundle tampered with")
	// ErrNoKey: the bundle is encrypted and no TFGATE_PLAN_KEY was given.
	ErrNoKey = errors.New("no plan key")
	// ErrWrongKey: TFGATE_PLAN_KEY does not decrypt the bundle.
	ErrWrongKey = errors.New("wrong plan key")
	// ErrUnencrypted: a key was given but the bundle is plain, so anyone able to upload an
	// artifact could have made it.
	ErrUnencrypted = errors.New("bundle not encrypted")
	// ErrNoBundle: the store holds no (unexpired) bundles for what was asked.
	ErrNoBundle = errors.New("no plan bundle")
	// ErrUnsafeArchive: a downloaded archive holds an entry that could escape or exhaust the
	// destination (see Unzip).
	ErrUnsafeArchive = errors.New("unsafe archive")
)
