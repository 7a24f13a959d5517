package unsubscribe

import "errors"

// IsStaleTimestamp reports whether VerifySendGrid refused a signature for its timestamp (too
// old, too far ahead or unreadable) rather than for the signature itself.
func IsStaleTimestamp(err error) bool { return errors.Is(err, errTimestamp) }
