package tools

// appointmentTools are the coach tools of the appointments: what's on a
// day, booking, cancelling, marking, and a group's slot. A coach's working
// hours and the slots' list are the studio's own apps' (the lane's
// /coaches/{id}/hours and /appointment-slots).
func appointmentTools() []spec {
	return []spec{
		{name: "list_appointments", title: "List appointments", readOnly: true, route: "GET /appointments",
			description: "Appointments by start; default today (what's on today).",
			args: map[string]string{
				"from":      "Default today.",
				"to":        "Default from.",
				"coachId":   "From list_coaches; default all.",
				"traineeId": "From search_trainees.",
				"status":    "",
			}},
		{name: "book_appointment", title: "Book an appointment", route: "POST /trainees/{id}/appointments", pathArg: "traineeId",
			description: "Book a trainee at a day and time: the coach's slot then, else a one-to-one within her hours; full: waiting list. Uses a credit.",
			args: map[string]string{
				"day":       "tuesday, next tuesday, tomorrow, YYYY-MM-DD.",
				"time":      "HH:MM.",
				"slotId":    "Instead of day and time; from list_appointments.",
				"coachId":   "From list_coaches; default yours, else hers.",
				"lengthMin": "",
				"place":     "Where, for a slot opened.",
				"waitlist":  "Default true.",
			}},
		{name: "cancel_appointment", title: "Cancel an appointment", route: "POST /appointments/{id}/cancel", pathArg: "appointmentId",
			description: "Cancel a booking; late (studio's hours) keeps the credit used. The first waiting moves up.",
			args:        map[string]string{"appointmentId": "From list_appointments."}},
		{name: "mark_appointment", title: "Mark an appointment", route: "POST /appointments/{id}/mark", pathArg: "appointmentId",
			description: "Mark a begun appointment attended (with its logged session) or no_show.",
			args:        map[string]string{"appointmentId": "From list_appointments.", "sessionId": "From list_trainee_sessions.", "status": ""}},
		{name: "create_appointment_slot", title: "Open an appointment slot", route: "POST /appointment-slots",
			description: "Open a coach's slot for one or a small group (capacity).",
			args: map[string]string{"coachId": "From list_coaches; default yours.", "day": "As book_appointment's.", "time": "HH:MM.",
				"lengthMin": "", "place": "Where.", "capacity": ""}},
	}
}
