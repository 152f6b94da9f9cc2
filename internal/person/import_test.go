package person

import (
	"reflect"
	"strings"
	"testing"
)

func TestParseCSV(t *testing.T) {
	const file = "first_name,last_name,address,city,state,zip,phone,phone2,line_type,emails,age_range,gender,latitude,longitude,associated\n" +
		"Robert,Smith,123 Main Street Apt 4,Springfield,IL,62704,(217) 555-0123,+1 217 555 0199,mobile;landline,bob@example.com; rob@example.com,45-54,male,39.78,-89.65,Jane Smith (spouse); Tim Smith (son)\n" +
		"\n" +
		"Ann,,1 Elm St,Springfield,IL,,,,,,,,,,\n" +
		"Ann,Lee,1 Elm St,Springfield,Illinois,6270,555-0123,,,,,,,,\n" +
		"Ann,Lee,1 Elm St,Springfield,XX,,,,,not-an-email,,,,,\n" +
		"ROBERT,SMITH,123 MAIN ST #4,springfield,il,62704,217-555-0177,,,,,,,,\n" +
		"José,Núñez,9 Oak Ave,Peoria,IL,61602-1234,,,,,,,,,\n"
	got, bad, err := ParseCSV(strings.NewReader(file), nil)
	if err != nil {
		t.Fatal(err)
	}
	if len(got) != 2 {
		t.Fatalf("got %d candidates, want 2 (the repeated Robert Smith merged): %+v", len(got), got)
	}
	bob := got[0]
	if bob.FirstName != "Robert" || bob.LastName != "Smith" || bob.Source != "directory" || bob.AgeRange != "45-54" {
		t.Errorf("got %+v", bob)
	}
	wantPhones := []Phone{{"2175550123", "mobile"}, {"2175550199", "landline"}, {"2175550177", ""}}
	if !reflect.DeepEqual(bob.Phones, wantPhones) {
		t.Errorf("got phones %+v, want %+v", bob.Phones, wantPhones)
	}
	if want := []string{"bob@example.com", "rob@example.com"}; !reflect.DeepEqual(bob.Emails, want) {
		t.Errorf("got emails %v, want %v", bob.Emails, want)
	}
	if a := bob.CurrentAddresses[0]; a.LatLong == nil || a.StateCode != "IL" || a.PostalCode != "62704" {
		t.Errorf("got address %+v", a)
	}
	wantAssoc := []Associate{{"Jane Smith", "Jane", "Smith", "spouse"}, {"Tim Smith", "Tim", "Smith", "son"}}
	if !reflect.DeepEqual(bob.AssociatedPeople, wantAssoc) {
		t.Errorf("got associates %+v, want %+v", bob.AssociatedPeople, wantAssoc)
	}
	if got[1].CurrentAddresses[0].PostalCode != "61602-1234" {
		t.Errorf("got ZIP %q", got[1].CurrentAddresses[0].PostalCode)
	}
	var lines []string
	for _, e := range bad {
		lines = append(lines, e.Error())
	}
	want := []string{
		"line 4: last_name: the last name is missing",
		`line 5: postal_code: "6270" is not a ZIP code (5 digits or ZIP+4)`,
		`line 5: phone: "555-0123" is not a 10-digit US phone number`,
		`line 6: state_code: "XX" is not a US state`,
		`line 6: email: "not-an-email" is not an email address`,
	}
	if !reflect.DeepEqual(lines, want) {
		t.Errorf("got row errors\n%s\nwant\n%s", strings.Join(lines, "\n"), strings.Join(want, "\n"))
	}
}

func TestParseCSVIDsAreStable(t *testing.T) {
	a, _, err := ParseCSV(strings.NewReader("name,street_line_1,city,state_code\nRobert J. Smith Jr.,123 Main Street,Springfield,IL\n"), nil)
	if err != nil || len(a) != 1 {
		t.Fatalf("got %v %v", a, err)
	}
	b, _, err := ParseCSV(strings.NewReader("Surname,Given,Addr,Town,St\nSMITH,robert,123 MAIN ST,SPRINGFIELD,il\n"),
		map[string]string{"last_name": "Surname", "first_name": "Given", "street_line_1": "Addr", "city": "Town", "state_code": "St"})
	if err != nil || len(b) != 1 {
		t.Fatalf("got %v %v", b, err)
	}
	if a[0].ID != b[0].ID {
		t.Errorf("got IDs %s and %s, want one", a[0].ID, b[0].ID)
	}
	if got := a[0]; got.FirstName != "Robert" || got.LastName != "Smith" || got.MiddleName != "j" {
		t.Errorf("got name parts %q %q %q", got.FirstName, got.MiddleName, got.LastName)
	}
}

func TestParseCSVFileErrors(t *testing.T) {
	tests := []struct {
		name, file string
		mapping    map[string]string
		want       string
	}{
		{"empty", "", nil, "the file is empty"},
		{"no name column", "city,state\nX,IL\n", nil, "no name or last_name column: map one with --map last_name=COLUMN"},
		{"unknown field", "name\nX\n", map[string]string{"shoe_size": "name"}, `unknown field "shoe_size"`},
		{"missing column", "name\nX\n", map[string]string{"city": "Town"}, `the mapping names column "Town" for city`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, _, err := ParseCSV(strings.NewReader(tt.file), tt.mapping)
			if err == nil || !strings.HasPrefix(err.Error(), tt.want) {
				t.Errorf("got %v, want %q", err, tt.want)
			}
		})
	}
}

func TestNormalizePhone(t *testing.T) {
	tests := []struct {
		in, want string
		ok       bool
	}{
		{"(217) 555-0123", "2175550123", true},
		{"+1 217.555.0123", "2175550123", true},
		{"12175550123", "2175550123", true},
		{"555-0123", "", false},
		{"(017) 555-0123", "", false},
		{"217 155 0123", "", false},
		{"217555012345", "", false},
	}
	for _, tt := range tests {
		t.Run(tt.in, func(t *testing.T) {
			got, ok := NormalizePhone(tt.in)
			if got != tt.want || ok != tt.ok {
				t.Errorf("got %q %v, want %q %v", got, ok, tt.want, tt.ok)
			}
		})
	}
}

func TestParseAssociates(t *testing.T) {
	tests := []struct {
		in   string
		want []Associate
	}{
		{"", nil},
		{"Jane Doe (Spouse)", []Associate{{"Jane Doe", "Jane", "Doe", "spouse"}}},
		{"Maria de la Cruz (mother); Ann Lee", []Associate{{"Maria de la Cruz", "Maria", "de la Cruz", "mother"}, {"Ann Lee", "Ann", "Lee", ""}}},
	}
	for _, tt := range tests {
		t.Run(tt.in, func(t *testing.T) {
			if got := ParseAssociates(tt.in); !reflect.DeepEqual(got, tt.want) {
				t.Errorf("got %+v, want %+v", got, tt.want)
			}
		})
	}
}
