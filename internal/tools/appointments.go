package tools

// appointmentTools are the coach tools of the appointments: a coach's
// hours and slots, what's on a day, booking, cancelling and marking.
func appointmentTools() []spec {
	return []spec{
		{name: "list_appointments", title: "List appointments", readOnly: true, route: "GET /appointments",
			description: "Appointments by start with trainee, coach, place and status; default today (what's on today).",
			args: map[string]string{
				"from":    "Default today.",
				"to":      "Default from.",
				"coachId": "Id or name from list_coaches; default every coach.",
			}},
		{name: "list_appointment_slots", title: "List appointment slots", readOnly: true, route: "GET /appointment-slots",
			description: "Coaches' slots with places booked, left and waiting; default today.",
			args:        map[string]string{"from": "Default today.", "to": "Default from.", "coachId": "Id or name from list_coaches; default every coach."}},
		{name: "get_working_hours", title: "Get working hours", readOnly: true, route: "GET /coaches/{id}/hours", pathArg: "coachId",
			description: "A coach's working hours by weekday, in the studio's time zone.",
			args:        map[string]string{"coachId": "Id or name from list_coaches."}},
		{name: "book_appointment", title: "Book an appointment", route: "POST /trainees/{id}/appointments", pathArg: "traineeId",
			description: "Book a trainee (\"book Omer Tuesday 18:00\"): a place in the coach's slot then, or a one-to-one slot opened within her hours; full: the waiting list. Uses a credit.",
			args: map[string]string{
				"day":     "tuesday, next tuesday, tomorrow or YYYY-MM-DD.",
				"time":    "HH:MM.",
				"slotId":  "From list_appointment_slots; instead of day and time.",
				"coachId": "Id or name from list_coaches; default yours, else the trainee's coach.",
			}},
		{name: "cancel_appointment", title: "Cancel an appointment", route: "POST /appointments/{id}/cancel", pathArg: "appointmentId",
			description: "Cancel a booking; within the studio's late-cancel hours the credit stays used. The first waiting trainee moves up.",
			args:        map[string]string{"appointmentId": "From list_appointments."}},
		{name: "mark_appointment", title: "Mark an appointment", route: "POST /appointments/{id}/mark", pathArg: "appointmentId",
			description: "Mark a begun appointment attended (optionally with its logged session) or no_show.",
			args:        map[string]string{"appointmentId": "From list_appointments.", "sessionId": "From list_trainee_sessions."}},
		{name: "create_appointment_slot", title: "Open an appointment slot", route: "POST /appointment-slots",
			description: "Open a coach's slot for one (default) or a small group; slots of one coach never overlap.",
			args:        map[string]string{"coachId": "Id or name from list_coaches; default yours.", "day": "tuesday, next tuesday or YYYY-MM-DD.", "time": "HH:MM."}},
		{name: "set_working_hours", title: "Set working hours", idempotent: true, route: "PUT /coaches/{id}/hours", pathArg: "coachId",
			description: "Replace a coach's working hours (ranges by weekday); bookings at a time without a slot must fit them.",
			args:        map[string]string{"coachId": "Id or name from list_coaches."}},
	}
}
