//go:build !benchdiscard

package sqlite

// discardIngest is false in every build but the bench's measuring one (discard_on.go): the
// compiler removes the branch that reads it.
const discardIngest = false
