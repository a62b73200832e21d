package weekplan

import (
	"fmt"
	"strings"
	"time"
)

// lang is the plan's language: "en" when asked for, Hebrew otherwise.
func (w *week) lang() string {
	if w.in.Language == "en" {
		return "en"
	}
	return "he"
}

// tr is en or he, by the plan's language.
func (w *week) tr(en, he string) string {
	if w.lang() == "en" {
		return en
	}
	return he
}

// trf formats en or he, by the plan's language.
func (w *week) trf(en, he string, a ...any) string { return fmt.Sprintf(w.tr(en, he), a...) }

// g is the Hebrew word that reads a person in her (or his) gender: female,
// male, or both forms when the gender is not known.
func (w *week) g(female, male string) string {
	switch w.in.Gender {
	case "female":
		return female
	case "male":
		return male
	}
	return female + "/" + male
}

// her is "her" or "his" in English, and the Hebrew possessive.
func (w *week) her() string {
	if w.lang() == "en" {
		switch w.in.Gender {
		case "male":
			return "his"
		case "female":
			return "her"
		}
		return "their"
	}
	switch w.in.Gender {
	case "female":
		return "שלה"
	case "male":
		return "שלו"
	}
	return "שלו/ה"
}

// areaNames are the body areas in Hebrew.
var areaNames = map[string]string{
	"neck": "צוואר", "shoulder": "כתף", "upper_back": "גב העליון", "lower_back": "גב התחתון", "chest": "חזה",
	"elbow": "מרפק", "wrist": "שורש כף היד", "hand": "כף היד", "abdomen": "בטן", "hip": "ירך", "groin": "מפשעה",
	"glute": "עכוז", "hamstring": "המסטרינג", "quadriceps": "ארבע ראשי", "knee": "ברך", "calf": "שוק",
	"shin": "שוק הקדמית", "ankle": "קרסול", "foot": "כף הרגל",
}

// area is a body area with its article ("the knee", "הברך").
func (w *week) area(a string) string {
	if w.lang() == "he" {
		if n, ok := areaNames[a]; ok {
			return "ה" + n
		}
	}
	return "the " + strings.ReplaceAll(a, "_", " ")
}

// inArea is "in the knee": in Hebrew the article folds into the prefix
// ("בברך").
func (w *week) inArea(a string) string {
	if w.lang() == "he" {
		if n, ok := areaNames[a]; ok {
			return "ב" + n
		}
	}
	return "in the " + strings.ReplaceAll(a, "_", " ")
}

// dayName is an ISO weekday's name in English (the validator's sentences
// are English: a model reads them).
func weekdayName(d int) string {
	if d < 1 || d > 7 {
		return fmt.Sprint(d)
	}
	return time.Weekday(d % 7).String()
}

var kindNames = map[string][2]string{
	"tendinopathy": {"tendinopathy", "דלקת/פגיעה בגיד"}, "sprain": {"sprain", "נקע"}, "strain": {"strain", "מתיחה/קרע בשריר"},
	"fracture": {"fracture", "שבר"}, "after_surgery": {"after surgery", "אחרי ניתוח"}, "": {"pain", "כאב"}, "pain": {"pain", "כאב"},
}

func (w *week) kindName(k string) string {
	n, ok := kindNames[k]
	if !ok {
		n = kindNames[""]
	}
	return w.tr(n[0], n[1])
}

var statusNames = map[string]string{"active": "פעילה", "recovering": "בהחלמה"}

func (w *week) status(s string) string {
	if w.lang() == "he" {
		if n, ok := statusNames[s]; ok {
			return n
		}
		return s
	}
	return s
}
