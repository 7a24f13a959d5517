package web

// pkValue is a field's value in the publishable-key form: only when that form was the one sent.
func pkValue(p KeysPage, v string) string {
	if !p.Form.Publishable {
		return ""
	}
	return v
}

// pkError is a field's error in the publishable-key form, when that form was the one sent.
func pkError(p KeysPage, field string) string {
	if !p.Form.Publishable {
		return ""
	}
	return p.Errors.Get(field)
}

// skValue and skError are pkValue and pkError for the secret-key form.
func skValue(p KeysPage, v string) string {
	if p.Form.Publishable {
		return ""
	}
	return v
}

func skError(p KeysPage, field string) string {
	if p.Form.Publishable {
		return ""
	}
	return p.Errors.Get(field)
}
