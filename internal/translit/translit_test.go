package translit

import (
	"strings"
	"testing"
	"unicode/utf8"
)

// names are common Israeli first names and surnames as written in Hebrew,
// each with the Latin spellings people usually give them (passports,
// WhatsApp profiles, sign-up forms). Written by hand, not by the code
// under test.
var names = []struct {
	he    string
	latin []string
}{
	// First names.
	{"תמר", []string{"Tamar"}},
	{"אברהם", []string{"Avraham", "Abraham", "Avi-ham"}},
	{"חן", []string{"Chen", "Hen", "Khen"}},
	{"נועה", []string{"Noa", "Noah"}},
	{"מאיה", []string{"Maya", "Maia"}},
	{"יעל", []string{"Yael", "Jael"}},
	{"שירה", []string{"Shira"}},
	{"מיכל", []string{"Michal", "Mikhal"}},
	{"רחל", []string{"Rachel", "Rahel"}},
	{"שרה", []string{"Sarah", "Sara"}},
	{"לאה", []string{"Leah", "Lea"}},
	{"רבקה", []string{"Rivka", "Rebecca"}},
	{"חנה", []string{"Hannah", "Hana", "Chana"}},
	{"אסתר", []string{"Esther", "Ester"}},
	{"רות", []string{"Ruth", "Rut"}},
	{"יהודית", []string{"Yehudit", "Judith"}},
	{"אפרת", []string{"Efrat", "Ephrat"}},
	{"הדס", []string{"Hadas"}},
	{"הילה", []string{"Hila", "Hilla"}},
	{"ענבל", []string{"Inbal"}},
	{"קרן", []string{"Keren", "Karen"}},
	{"ליאת", []string{"Liat"}},
	{"אורלי", []string{"Orly", "Orli"}},
	{"סיגל", []string{"Sigal"}},
	{"ירדן", []string{"Yarden", "Jordan"}},
	{"נטע", []string{"Neta", "Netta"}},
	{"עדי", []string{"Adi"}},
	{"טל", []string{"Tal"}},
	{"בר", []string{"Bar"}},
	{"רוני", []string{"Roni", "Ronnie"}},
	{"דנה", []string{"Dana"}},
	{"נגה", []string{"Noga"}},
	{"אביטל", []string{"Avital"}},
	{"נעמה", []string{"Naama", "Na'ama"}},
	{"עדן", []string{"Eden"}},
	{"סתיו", []string{"Stav"}},
	{"אורית", []string{"Orit"}},
	{"גלית", []string{"Galit"}},
	{"דליה", []string{"Dalia", "Dahlia"}},
	{"יפעת", []string{"Yifat", "Ifat"}},
	{"ענת", []string{"Anat"}},
	{"אילנה", []string{"Ilana"}},
	{"צפורה", []string{"Tzipora", "Zipora", "Tsipora"}},
	{"שולמית", []string{"Shulamit"}},
	{"תהילה", []string{"Tehila", "Tehilla"}},
	{"הודיה", []string{"Hodaya"}},
	{"איילת", []string{"Ayelet"}},
	{"ורד", []string{"Vered"}},
	{"ליאור", []string{"Lior"}},
	{"שני", []string{"Shani"}},
	{"משה", []string{"Moshe", "Moses"}},
	{"יוסף", []string{"Yosef", "Joseph", "Yossef"}},
	{"יצחק", []string{"Yitzhak", "Itzhak", "Yitzchak", "Isaac"}},
	{"יעקב", []string{"Yaakov", "Jacob", "Ya'akov"}},
	{"דוד", []string{"David"}},
	{"שלמה", []string{"Shlomo"}},
	{"דניאל", []string{"Daniel"}},
	{"מיכאל", []string{"Michael", "Mikhael"}},
	{"אריאל", []string{"Ariel"}},
	{"יונתן", []string{"Yonatan", "Jonathan", "Yehonatan"}},
	{"איתי", []string{"Itai", "Itay"}},
	{"איתן", []string{"Eitan", "Etan", "Ethan"}},
	{"עומר", []string{"Omer"}},
	{"אורן", []string{"Oren"}},
	{"גיא", []string{"Guy"}},
	{"ניר", []string{"Nir"}},
	{"גיל", []string{"Gil"}},
	{"יואב", []string{"Yoav"}},
	{"בועז", []string{"Boaz"}},
	{"אלון", []string{"Alon"}},
	{"שי", []string{"Shai", "Shay"}},
	{"חיים", []string{"Chaim", "Haim", "Hayim"}},
	{"צבי", []string{"Tzvi", "Zvi", "Tsvi"}},
	{"מנחם", []string{"Menachem", "Menahem"}},
	{"מרדכי", []string{"Mordechai", "Mordehai"}},
	{"ברוך", []string{"Baruch", "Baruh"}},
	{"מאיר", []string{"Meir"}},
	{"זאב", []string{"Zeev", "Ze'ev"}},
	{"דב", []string{"Dov"}},
	{"אליהו", []string{"Eliyahu", "Eliahu"}},
	{"ישראל", []string{"Israel", "Yisrael"}},
	{"שמואל", []string{"Shmuel", "Samuel"}},
	{"יהודה", []string{"Yehuda", "Yehudah", "Judah"}},
	{"אייל", []string{"Eyal"}},
	{"צחי", []string{"Tzachi", "Tsahi"}},
	{"נתנאל", []string{"Netanel", "Nethanel"}},
	{"יובל", []string{"Yuval"}},
	{"מתן", []string{"Matan"}},
	{"נדב", []string{"Nadav"}},
	{"אורי", []string{"Uri", "Ori"}},
	{"רונן", []string{"Ronen"}},
	{"ארז", []string{"Erez"}},
	{"יניב", []string{"Yaniv"}},
	{"קובי", []string{"Kobi", "Koby"}},
	{"אסף", []string{"Asaf", "Assaf"}},
	{"אלעד", []string{"Elad"}},
	{"עידו", []string{"Ido", "Iddo"}},
	{"אופיר", []string{"Ofir", "Ophir"}},
	{"דביר", []string{"Dvir"}},
	{"נחום", []string{"Nachum", "Nahum"}},
	// Surnames.
	{"כהן", []string{"Cohen", "Kohen", "Cohn"}},
	{"לוי", []string{"Levi", "Levy"}},
	{"מזרחי", []string{"Mizrahi", "Mizrachi"}},
	{"פרץ", []string{"Peretz", "Perets"}},
	{"ביטון", []string{"Biton", "Bitton"}},
	{"דהן", []string{"Dahan"}},
	{"פרידמן", []string{"Friedman", "Fridman"}},
	{"מלכה", []string{"Malka"}},
	{"אזולאי", []string{"Azoulay", "Azulai"}},
	{"כץ", []string{"Katz", "Kats"}},
	{"אוחנה", []string{"Ohana"}},
	{"חדד", []string{"Hadad", "Haddad"}},
	{"גבאי", []string{"Gabay", "Gabai"}},
	{"עמר", []string{"Amar"}},
	{"שפירא", []string{"Shapira", "Shapiro"}},
	{"סגל", []string{"Segal"}},
	{"גולן", []string{"Golan"}},
	{"אשכנזי", []string{"Ashkenazi"}},
	{"ששון", []string{"Sasson", "Sason"}},
	{"עזרא", []string{"Ezra"}},
	{"וקנין", []string{"Vaknin"}},
	{"אלבז", []string{"Elbaz"}},
	{"זוהר", []string{"Zohar"}},
	{"אוחיון", []string{"Ohayon"}},
	{"רוזנברג", []string{"Rosenberg", "Rozenberg"}},
	{"גולדברג", []string{"Goldberg"}},
	{"וייס", []string{"Weiss", "Weis"}},
	{"קליין", []string{"Klein"}},
	{"שוורץ", []string{"Schwartz", "Shwartz"}},
	{"רובין", []string{"Rubin"}},
	{"שטרן", []string{"Stern", "Shtern"}},
	{"קפלן", []string{"Kaplan"}},
	{"הורוביץ", []string{"Horowitz", "Horovitz"}},
	{"כרמי", []string{"Carmi", "Karmi"}},
	{"ברק", []string{"Barak"}},
	{"דיין", []string{"Dayan"}},
	{"נבון", []string{"Navon"}},
	{"צור", []string{"Tzur", "Zur", "Tsur"}},
	{"בן דוד", []string{"Ben David", "Ben-David"}},
	{"טל", []string{"Tal"}},
	{"שרעבי", []string{"Sharabi"}},
	{"יוסופוב", []string{"Yusupov", "Yusufov"}},
	{"אבוטבול", []string{"Abutbul", "Aboutboul"}},
	{"חזן", []string{"Hazan", "Chazan"}},
	{"אדרי", []string{"Edri", "Adri"}},
	{"טולדנו", []string{"Toledano"}},
	{"ברגר", []string{"Berger"}},
	{"לנדאו", []string{"Landau"}},
}

// Every usual Latin spelling finds the Hebrew name and the Hebrew name
// finds every one of them: at least 95% both ways (it is every one today).
func TestNamesAcrossScripts(t *testing.T) {
	pairs, heToLatin, latinToHe := 0, 0, 0
	for _, n := range names {
		for _, l := range n.latin {
			pairs++
			if Matches(n.he, l) {
				heToLatin++
			} else {
				t.Logf("%s does not find %s (keys %v and %v)", n.he, l, NameKeys(n.he), NameKeys(l))
			}
			if Matches(l, n.he) {
				latinToHe++
			}
		}
	}
	if len(names) < 100 {
		t.Fatalf("only %d names in the table", len(names))
	}
	for dir, found := range map[string]int{"Hebrew → Latin": heToLatin, "Latin → Hebrew": latinToHe} {
		t.Logf("%s: %d of %d", dir, found, pairs)
		if found*100 < pairs*95 {
			t.Errorf("%s: %d of %d spellings found, under 95%%", dir, found, pairs)
		}
	}
}

// Different names stay apart: a key is no wildcard.
func TestDifferentNamesDoNotMatch(t *testing.T) {
	for _, p := range [][2]string{
		{"Tamar", "דניאל"}, {"Tamar", "Daniel"}, {"Chen", "Cohen"}, {"Noa", "Dana"}, {"Cohen", "Levi"},
		{"יוסף", "יעקב"}, {"Shira", "Michal"}, {"Avraham", "Ariel"}, {"Omer", "Oren"}, {"Katz", "Klein"},
	} {
		if Matches(p[0], p[1]) {
			t.Errorf("%s matches %s (keys %v and %v)", p[0], p[1], NameKeys(p[0]), NameKeys(p[1]))
		}
	}
}

func TestMatchesWholeNames(t *testing.T) {
	for _, c := range []struct {
		q, name string
		want    bool
	}{
		{"Tamar", "תמר אברהם", true},
		{"tamar avraham", "תמר אברהם", true},
		{"תמר", "Tamar Abraham", true},
		{"Tamar Cohen", "תמר אברהם", false},
		{"", "Tamar", false},
		{"Ben-David", "בן־דוד", true},
		{"סקוואט", "Squat", true},
		{"דדליפט", "Deadlift", true},
		{"vip2", "VIP", false},
		{"Levy", "Levi", true},
		{"Koby", "Kobi", true},
		{"vip", "VIP2", false},
	} {
		if got := Matches(c.q, c.name); got != c.want {
			t.Errorf("Matches(%q, %q) = %v, want %v (keys %v and %v)", c.q, c.name, got, c.want, NameKeys(c.q), NameKeys(c.name))
		}
	}
}

// The keys of any text are few, short, in the key alphabet, and the same
// for the same text.
func FuzzKeys(f *testing.F) {
	for _, n := range names {
		f.Add(n.he)
		f.Add(strings.Join(n.latin, " "))
	}
	f.Add("וווווווווווווווווווייייייייייייי")
	f.Add("a\u05b8\u0301'׳x")
	f.Fuzz(func(t *testing.T, s string) {
		for _, w := range Words(s) {
			keys := Keys(w)
			if len(keys) > maxKeys {
				t.Fatalf("%q has %d keys", w, len(keys))
			}
			for _, k := range keys {
				if k == "" || !utf8.ValidString(k) || strings.Trim(k, "bcdghklmnprstyz0123456789") != "" {
					t.Fatalf("%q: key %q is outside the key alphabet", w, k)
				}
				if len(k) > 2*utf8.RuneCountInString(w) {
					t.Fatalf("%q: key %q is longer than the word allows", w, k)
				}
			}
			if again := Keys(w); strings.Join(again, ",") != strings.Join(keys, ",") {
				t.Fatalf("%q: keys %v then %v", w, keys, again)
			}
		}
		Matches(s, s)
	})
}
