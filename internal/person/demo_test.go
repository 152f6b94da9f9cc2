package person

import (
	"reflect"
	"regexp"
	"strings"
	"testing"
)

func TestDemoResidents(t *testing.T) {
	addrs := []Address{
		home("123 Main St", "Springfield", "IL", "62704"),
		home("9 Oak Ave", "Peoria", "IL", "61602"),
		home("1 Market St", "San Francisco", "CA", "94105"),
	}
	got := DemoResidents(addrs, 42)
	if len(got) != len(addrs) {
		t.Fatalf("got %d residents, want %d", len(got), len(addrs))
	}
	if again := DemoResidents(addrs, 42); !reflect.DeepEqual(got, again) {
		t.Error("got different residents for the same seed")
	}
	// A resident depends on its own address only, not on the others in the list.
	if alone := DemoResidents(addrs[1:2], 42); !reflect.DeepEqual(alone[0], got[1]) {
		t.Errorf("got %+v alone, want %+v", alone[0], got[1])
	}
	phone := regexp.MustCompile(`^[2-9][0-9]{2}55501[0-9]{2}$`)
	for i, c := range got {
		t.Run(addrs[i].StreetLine1, func(t *testing.T) {
			if c.Source != "demo" || c.ID == "" || c.LastName == "" {
				t.Errorf("got source %q id %q last %q", c.Source, c.ID, c.LastName)
			}
			if !phone.MatchString(c.Phones[0].PhoneNumber) {
				t.Errorf("got phone %q, want a 555-01xx number", c.Phones[0].PhoneNumber)
			}
			if !strings.HasSuffix(c.Emails[0], "@example.com") {
				t.Errorf("got email %q, want example.com", c.Emails[0])
			}
			if as := c.AssociatedPeople; len(as) != 1 || as[0].Relation == "" || as[0].Firstname == c.FirstName {
				t.Errorf("got associates %+v", as)
			}
			// A demo resident is found by a lookup of its own name and home.
			q := Query{Name: c.Name, StreetLine1: addrs[i].StreetLine1, City: addrs[i].City, StateCode: addrs[i].StateCode}
			if r, err := Match(q, got); err != nil || r.ID != c.ID {
				t.Errorf("got %v %v, want %s", r.ID, err, c.ID)
			}
		})
	}
}
