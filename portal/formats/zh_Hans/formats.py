"""Simplified Chinese formats: Django's, with money grouped in threes by a comma.

Django's zh_Hans formats group digits in fours with no separator, so a TCO of 1234567 CNY
printed as "1234567" in Chinese while the English page, the PDF and every reason built in
``scoring/`` (f"{total:,.2f}") print "1,234,567". Procurement documents and bank figures in
mainland China group amounts in threes with a comma (1,234,567.00), so figures read the same
in both languages and match the quotes they are checked against.
"""

from django.conf.locale.zh_Hans.formats import *  # noqa: F403

THOUSAND_SEPARATOR = ","
NUMBER_GROUPING = 3
