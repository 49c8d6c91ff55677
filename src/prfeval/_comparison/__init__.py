"""comparison"""
