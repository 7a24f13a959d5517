package mail

// UnsubscribeHeaders returns the headers for a one-click unsubscribe
// (RFC 8058) to put in Message.Headers: List-Unsubscribe names the
// preferences URL, and List-Unsubscribe-Post tells the mailbox provider it
// may unsubscribe with a POST to it, without opening a page. Large
// providers expect both on mail sent on behalf of a list.
func UnsubscribeHeaders(preferencesURL string) map[string]string {
	return map[string]string{
		"List-Unsubscribe":      "<" + preferencesURL + ">",
		"List-Unsubscribe-Post": "List-Unsubscribe=One-Click",
	}
}
