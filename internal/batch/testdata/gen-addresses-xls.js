const XLSX = require('xlsx');
const wb = XLSX.utils.book_new();
XLSX.utils.book_append_sheet(wb, XLSX.utils.aoa_to_sheet([]), 'Empty');
const rows = [
  ['Property Address', 'City', 'State', 'ZIP', 'Bedrooms', 'Bathrooms', 'Last Sale', 'Notes'],
  ['7006 Maple Rd', 'Seattle', 'WA', 98103, 3, 2.5, new Date(Date.UTC(2021, 5, 15)), 'Corner lot'],
  ['1679 15th Ave Apt 1A', 'Austin', 'TX', 78701, 1, 1, null, 'Überprüft – café'],
  ['12 Beacon St', 'Boston', 'MA', 2134, 2, 1.5, null, '=HYPERLINK("http://x")'],
  ['1525 47th Ave', 'Denver', 'CO', '80202-1234', 4, 3, null, null],
];
for (let i = 0; i < 150; i++) rows.push([`${100 + i} Long Street Name Number ${i} Way`, 'Seattle', 'WA', 98103, 3, 2, null, 'x'.repeat(60) + ' row ' + i]);
const ws = XLSX.utils.aoa_to_sheet(rows, {cellDates: true});
ws['D4'].z = '00000';  // Excel's ZIP Code format, value 2134 shows 02134
ws['G2'].z = 'yyyy-mm-dd';
XLSX.utils.book_append_sheet(wb, ws, 'Properties');
XLSX.writeFile(wb, 'addresses.xls', {bookType: 'biff8', bookSST: true});
console.log('ok');
